import { PROMPT } from './failoverbench-world.js';

/** The front doors a scenario is called through. */
export type Door = 'chat' | 'responses' | 'messages';

/** One billed line as the usage reports it. */
export interface CostLine {
  readonly component: string;
  readonly units: number;
  readonly unit_price_usd: string;
  readonly amount_usd: string;
}

/** What one call delivered, whatever the door: the caller's view of a scenario. */
export interface CallOutcome {
  readonly status: number;
  readonly requestId: string;
  /** The answer text the client received. */
  readonly text: string;
  /** The error the call ended with, if any (a JSON error, or the stream's error event). */
  readonly error: { readonly message: string } | undefined;
  /** The stream ended as its door ends one (`[DONE]`, `response.completed`/`failed`, `message_stop`/`error`); true when not streamed. */
  readonly ended: boolean;
  /** `usage.cost` and its lines, as the client was told. */
  readonly usage: { readonly cost: number; readonly cost_details: readonly CostLine[] } | undefined;
  /** The answer's `model`. */
  readonly model: string | undefined;
  readonly wallMs: number;
}

/** The request of a scenario on a door (`models` only on Chat Completions). */
export function requestBody(door: Door, model: string, stream: boolean, fallbackModel?: string): Record<string, unknown> {
  if (door === 'responses') return { model, input: PROMPT, stream };
  if (door === 'messages') return { model, max_tokens: 200, messages: [{ role: 'user', content: PROMPT }], stream };
  return { model, messages: [{ role: 'user', content: PROMPT }], stream, ...(fallbackModel === undefined ? {} : { models: [fallbackModel] }) };
}

const PATHS: Readonly<Record<Door, string>> = { chat: '/v1/chat/completions', responses: '/v1/responses', messages: '/v1/messages' };

/** Server-sent events of a body: each data payload parsed, with its event name. */
function parseEvents(text: string): Array<{ event: string | undefined; data: any }> {
  const events: Array<{ event: string | undefined; data: any }> = [];
  for (const frame of text.split(/\n\n/)) {
    const lines = frame.split('\n');
    const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
    const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
    if (data === '') continue;
    events.push({ event, data: data === '[DONE]' ? '[DONE]' : JSON.parse(data) });
  }
  return events;
}

type Read = Omit<CallOutcome, 'status' | 'requestId' | 'wallMs'>;

function readChatStream(events: Array<{ data: any }>): Read {
  const chunks = events.map((e) => e.data).filter((d) => d !== '[DONE]');
  const text = chunks.map((c) => c.choices?.[0]?.delta?.content ?? '').join('');
  const failed = chunks.find((c) => c.error !== undefined);
  const usage = chunks.findLast((c) => c.usage !== undefined && c.usage !== null)?.usage;
  return { text, error: failed?.error, ended: events.at(-1)?.data === '[DONE]', usage, model: chunks[0]?.model };
}

function readResponsesStream(events: Array<{ event: string | undefined; data: any }>): Read {
  const text = events.filter((e) => e.data.type === 'response.output_text.delta').map((e) => e.data.delta).join('');
  const last = events.at(-1)?.data;
  const response = last?.response;
  const error = last?.type === 'error' ? { message: String(last.message) } : response?.error ?? undefined;
  const ended = ['response.completed', 'response.failed', 'response.incomplete', 'error'].includes(String(last?.type));
  return { text, error: error ?? undefined, ended, usage: response?.usage ?? undefined, model: response?.model };
}

function readMessagesStream(events: Array<{ event: string | undefined; data: any }>): Read {
  const text = events.filter((e) => e.data.type === 'content_block_delta' && e.data.delta?.type === 'text_delta').map((e) => e.data.delta.text).join('');
  const failed = events.find((e) => e.data.type === 'error');
  const usage = events.findLast((e) => e.data.type === 'message_delta')?.data.usage;
  const last = events.at(-1)?.data.type;
  return { text, error: failed?.data.error, ended: last === 'message_stop' || last === 'error', usage, model: events[0]?.data.message?.model };
}

function readWhole(door: Door, body: any): Read {
  if (body?.error !== undefined && body.error !== null) return { text: '', error: body.error, ended: true, usage: undefined, model: undefined };
  if (door === 'responses') {
    const text = (body.output ?? []).flatMap((item: any) => item.content ?? []).map((part: any) => part.text ?? '').join('');
    return { text, error: undefined, ended: true, usage: body.usage, model: body.model };
  }
  if (door === 'messages') return { text: (body.content ?? []).map((b: any) => b.text ?? '').join(''), error: undefined, ended: true, usage: body.usage, model: body.model };
  return { text: body.choices?.[0]?.message?.content ?? '', error: undefined, ended: true, usage: body.usage, model: body.model };
}

/** Calls one door, streamed or not, and reads what the client got, however it ended. */
export async function callDoor(url: string, token: string, door: Door, body: Record<string, unknown>): Promise<CallOutcome> {
  const started = performance.now();
  const res = await fetch(`${url}${PATHS[door]}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const raw = await res.text();
  const wallMs = performance.now() - started;
  const requestId = res.headers.get('x-service-request-id') ?? '';
  const streamed = (res.headers.get('content-type') ?? '').includes('text/event-stream');
  let read: Read;
  if (!streamed) read = readWhole(door, JSON.parse(raw));
  else if (door === 'chat') read = readChatStream(parseEvents(raw));
  else if (door === 'responses') read = readResponsesStream(parseEvents(raw));
  else read = readMessagesStream(parseEvents(raw));
  return { status: res.status, requestId, wallMs, ...read };
}
