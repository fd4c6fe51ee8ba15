import { isRecord } from '../providers/index.js';

/**
 * One stored answer. Chat answers a door translated are kept in chat-completions form
 * whichever door made them, so a hit is said again through the asking door's own translation,
 * streamed or not. Answers a door relayed from a provider speaking its API are kept in that
 * API's own non-streamed form, which a hit shows as it is or streams as that API's events.
 */
export type CacheEntry = ChatEntry | RelayEntry | EmbeddingsEntry;

/** The doors that relay a vendor API natively: Anthropic's Messages, OpenAI's Responses. */
export type RelayDoor = 'messages' | 'responses';

/** What every entry carries: where it came from and what it cost when it was made. */
export interface EntryBase {
  /** The request whose answer this is (named in the hit's receipt). */
  readonly request_id: string;
  /** The catalog id that answered. */
  readonly model: string;
  /** Unix ms when stored. */
  readonly stored_at: number;
  /** What the original request was billed, nano-USD as a decimal string (bigint-safe). */
  readonly cost_nano: string;
}

/** A chat answer: a `chat.completion` body as the Chat Completions door answers it. */
export interface ChatEntry extends EntryBase {
  readonly kind: 'chat';
  readonly completion: Record<string, unknown>;
}

/** A relayed answer: a Messages `message` or a Responses `response` object, as its door answered it. */
export interface RelayEntry extends EntryBase {
  readonly kind: 'relay';
  /** The door (and so the vendor API) whose form `answer` is in. */
  readonly door: RelayDoor;
  readonly answer: Record<string, unknown>;
}

/** An embeddings answer: the JSON body as sent, and its prompt token count. */
export interface EmbeddingsEntry extends EntryBase {
  readonly kind: 'embeddings';
  readonly body: string;
  readonly prompt_tokens: number;
}


/** Reads a stored entry back; anything that is not one (an older format, damage) is a miss. */
export function parseEntry(text: string): CacheEntry | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(value) || typeof value.request_id !== 'string' || typeof value.model !== 'string') return undefined;
  if (typeof value.stored_at !== 'number' || typeof value.cost_nano !== 'string' || !/^\d+$/.test(value.cost_nano)) return undefined;
  if (value.kind === 'chat' && isRecord(value.completion)) return value as unknown as ChatEntry;
  if (value.kind === 'relay' && (value.door === 'messages' || value.door === 'responses') && isRecord(value.answer)) return value as unknown as RelayEntry;
  if (value.kind === 'embeddings' && typeof value.body === 'string' && typeof value.prompt_tokens === 'number') return value as unknown as EmbeddingsEntry;
  return undefined;
}
