import type { ChatDoor } from '../chat/index.js';
import type { CacheEntry, EntryBase } from './cache-entry.js';
import type { AnswerKeepers } from './capturing-front.js';
import { reportedCost } from './hit-price.js';
import type { ResponseCache } from './response-cache.js';

/** Where and for how long a miss's answer is kept, and whose it is. */
export interface KeptAs {
  /** The entry's key (see cacheKey). */
  readonly name: string;
  readonly ttl: number;
  readonly requestId: string;
  readonly door: ChatDoor;
  /** The catalog id the request resolved to: the answering one, when the answer names none. */
  readonly modelId: string;
}

/**
 * Keepers that store a miss's complete answer as an entry: a translated answer as a chat
 * entry, a relayed one (Messages, Responses) as a relay entry of its door. An answer that
 * reports no cost (its charge was not durable) is not kept.
 */
export function entryKeepers(cache: ResponseCache, kept: KeptAs): AnswerKeepers {
  const keep = (answer: Record<string, unknown>, entryOf: (base: EntryBase) => CacheEntry): void => {
    const cost = reportedCost(answer.usage);
    if (cost === undefined) return;
    const model = typeof answer.model === 'string' ? answer.model : kept.modelId;
    const base: EntryBase = { request_id: kept.requestId, model, stored_at: cache.now(), cost_nano: cost.toString() };
    // Stored after the answer went out; the request never waits for the cache.
    void cache.keep(kept.name, entryOf(base), kept.ttl, kept.door);
  };
  const door = kept.door;
  const chat = (completion: Record<string, unknown>): void => keep(completion, (base) => ({ ...base, kind: 'chat', completion }));
  if (door === 'chat/completions') return { chat };
  return { chat, relay: { door, keep: (answer) => keep(answer, (base) => ({ ...base, kind: 'relay', door, answer })) } };
}
