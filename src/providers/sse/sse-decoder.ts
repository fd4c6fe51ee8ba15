import { createParser, type ParseError } from 'eventsource-parser';
import { GatewayError } from '../../platform/errors/index.js';
import { sanitizeUpstreamMessage } from '../http/upstream-errors.js';

/** One server-sent event. */
export interface SseEvent {
  /** The `event:` field; undefined when the server sent none. */
  event?: string;
  data: string;
}

/** Largest single event accepted; a stream without blank lines must not eat memory. */
const MAX_EVENT_CHARS = 16 * 1024 * 1024;

function brokenStream(detail: string, cause?: unknown): GatewayError {
  return new GatewayError('upstream_error', `The upstream provider sent a broken event stream: ${detail}`, { cause });
}

function parseErrorToGateway(err: ParseError): GatewayError {
  if (err.type === 'unknown-field') {
    return brokenStream(`unexpected line ${JSON.stringify(sanitizeUpstreamMessage(err.line ?? ''))}`, err);
  }
  return brokenStream(err.type, err);
}

/**
 * Decodes a byte stream into server-sent events, whatever the chunk boundaries (inside
 * UTF-8 sequences, lines or `\r\n` pairs). A last event whose lines are whole but that lacks
 * its closing blank line is kept, as tolerant clients keep it (some proxies end that way).
 * Lines that are not SSE and a stream cut off in the middle of a line raise `upstream_error`;
 * transport errors pass through unchanged.
 */
export async function* decodeSse(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const ready: SseEvent[] = [];
  let failure: GatewayError | undefined;
  const parser = createParser({
    onEvent: (message) => {
      ready.push(message.event === undefined ? { data: message.data } : { event: message.event, data: message.data });
    },
    onError: (err) => {
      failure ??= parseErrorToGateway(err);
    },
    maxBufferSize: MAX_EVENT_CHARS,
  });
  const decoder = new TextDecoder('utf-8');
  let tail = '';
  for await (const chunk of body) {
    const text = decoder.decode(chunk, { stream: true });
    if (text !== '') tail = text;
    parser.feed(text);
    yield* drain(ready);
    if (failure !== undefined) throw failure;
  }
  const rest = decoder.decode();
  if (rest !== '') tail = rest;
  parser.feed(rest);
  yield* drain(ready);
  if (failure !== undefined) throw failure;
  // Terminating whatever is still buffered reveals an event that never got its blank line:
  // kept when its last line was whole, a cut stream when the stream stopped inside a line.
  parser.feed('\n\n');
  if (failure !== undefined) throw failure;
  if (ready.length > 0 && !/[\r\n]$/.test(tail)) throw brokenStream('the stream ended in the middle of an event');
  yield* drain(ready);
}

function* drain(ready: SseEvent[]): Generator<SseEvent> {
  while (ready.length > 0) {
    const next = ready.shift();
    if (next !== undefined) yield next;
  }
}

/** Parses an event's JSON payload; invalid JSON is the upstream's fault (`upstream_error`). */
export function parseSseJson(data: string): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch (err) {
    throw brokenStream('an event did not carry valid JSON', err);
  }
}

/** What {@link TolerantSseJson.parse} returns for an event it skipped. */
export const SKIPPED_EVENT: unique symbol = Symbol('skipped event');

/**
 * Reads a stream's event payloads, skipping a few that are not JSON: a stray malformed event
 * among valid ones is noise the answer survives, while more than `maxSkipped` in one stream
 * means the stream is broken (the parse error is then thrown).
 */
export class TolerantSseJson {
  private skipped = 0;

  constructor(private readonly maxSkipped = 3) {}

  /** The event's JSON payload, or SKIPPED_EVENT when it was not JSON and may be left out. */
  parse(data: string): unknown {
    try {
      return JSON.parse(data) as unknown;
    } catch (err) {
      if (++this.skipped > this.maxSkipped) throw brokenStream('an event did not carry valid JSON', err);
      return SKIPPED_EVENT;
    }
  }
}
