import { Agent, request, type IncomingMessage } from 'node:http';
import { BENCH_CHAT_MODEL } from './bench-seed.js';

/** A chat body for the mock upstream: `chunks` stream chunks `gapMs` apart (see mock-upstream). */
export function chatBody(options: { stream: boolean; chunks?: number; gapMs?: number; hold?: boolean; model?: string }): string {
  const directive = `bench:chunks=${options.chunks ?? 3}:gap=${options.gapMs ?? 0}${options.hold ? ':hold' : ''}`;
  return JSON.stringify({
    model: options.model ?? BENCH_CHAT_MODEL,
    messages: [{ role: 'user', content: `Say hello. ${directive}` }],
    max_tokens: 64,
    stream: options.stream,
  });
}

/** Request headers for a chat call (the floor ignores the key). */
export function chatHeaders(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
}

/** How one streamed call went. */
export interface StreamTiming {
  status: number;
  /** From sending the request to the first body byte. */
  ttfbMs: number;
  totalMs: number;
  /** The whole body, when asked for. */
  text: string;
}

/** Hooks for streams that are watched while open. */
export interface StreamHooks {
  /** First body byte arrived. */
  onFirstByte?: () => void;
  /** The response, e.g. to destroy it early. */
  onResponse?: (res: IncomingMessage) => void;
  /** Keep only the last bytes of the body (memory of thousands of open streams). */
  keepTail?: number;
}

/** Sends one streamed chat call over `agent` with the given headers and reads it to the end. */
export function timedStream(agent: Agent, url: string, headers: Record<string, string>, body: string, hooks: StreamHooks = {}): Promise<StreamTiming> {
  return new Promise<StreamTiming>((resolve, reject) => {
    const started = performance.now();
    const req = request(`${url}/v1/chat/completions`, { method: 'POST', agent, headers }, (res) => {
      hooks.onResponse?.(res);
      let ttfbMs = Number.NaN;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (Number.isNaN(ttfbMs)) {
          ttfbMs = performance.now() - started;
          hooks.onFirstByte?.();
        }
        text += chunk;
        if (hooks.keepTail !== undefined && text.length > hooks.keepTail * 2) text = text.slice(-hooks.keepTail);
      });
      res.once('end', () => resolve({ status: res.statusCode ?? 0, ttfbMs, totalMs: performance.now() - started, text }));
      res.once('error', reject);
    });
    req.once('error', reject);
    req.end(body);
  });
}

/**
 * True when a streamed body ended as a complete OpenAI stream: a usage chunk then `[DONE]`;
 * with `billed`, the usage must carry the gateway's `cost`.
 */
export function completeStream(text: string, billed: boolean): boolean {
  return text.endsWith('data: [DONE]\n\n') && text.includes('"usage":{') && (!billed || text.includes('"cost":'));
}
