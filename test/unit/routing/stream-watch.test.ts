import { describe, expect, it } from 'vitest';
import { anyRouteAvailable, streamLimits } from '../../../src/chat/routes/stream-limits.js';
import { RouteHealth } from '../../../src/routing/index.js';
import { StreamWatch } from '../../../src/chat/routes/stream-watch.js';
import type { ChatStreamEvent } from '../../../src/providers/index.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const role: ChatStreamEvent = { kind: 'delta', choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] };
const word = (content: string): ChatStreamEvent => ({ kind: 'delta', choices: [{ index: 0, delta: { content }, finish_reason: null }] });
const thought: ChatStreamEvent = { kind: 'delta', choices: [{ index: 0, delta: { reasoning: 'hmm' }, finish_reason: null }] };

/** An upstream that yields each event after its pause, and stops when its signal aborts (as an HTTP adapter does). */
async function* upstream(signal: AbortSignal, steps: Array<[number, ChatStreamEvent]>): AsyncGenerator<ChatStreamEvent> {
  for (const [pause, event] of steps) {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, pause);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(signal.reason);
      }, { once: true });
    });
    yield event;
  }
}

async function drain(watch: StreamWatch, steps: Array<[number, ChatStreamEvent]>): Promise<{ events: ChatStreamEvent[]; error: unknown }> {
  const events: ChatStreamEvent[] = [];
  try {
    for await (const event of watch.events(upstream(watch.signal, steps))) events.push(event);
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  } finally {
    watch.dispose();
  }
}

const model = (capabilities: string[]) => ({ model: { doc: { capabilities } } }) as never;

describe('streamLimits', () => {
  it('sets its limits only where another route could answer, and a first-token limit never for a model that reasons', () => {
    const timing = { maxRequestMs: 1, usageGraceMs: 1, firstTokenMs: 10_000, stallMs: 30_000 };
    expect(streamLimits(timing, model(['TEXT']), true)).toEqual({ firstTokenMs: 10_000, stallMs: 30_000 });
    // On the last route a silent stream is waited for: ending it would only lose the answer.
    expect(streamLimits(timing, model(['TEXT']), false)).toEqual({});
    expect(streamLimits(timing, model(['TEXT', 'REASONING']), true)).toEqual({ stallMs: 30_000 });
  });
});

describe('anyRouteAvailable', () => {
  it('counts a route whose breaker is open, or that waits out a Retry-After, as nowhere to move to', () => {
    const health = new RouteHealth({ breakerFailures: 2, breakerCooldownMs: 60_000 });
    const route = (key: string) => ({ key, providerId: 'p', entryId: 'm', upstreamModel: 'u' });
    health.failed('down');
    health.failed('down');
    health.failed('limited', 5_000);
    expect(anyRouteAvailable(health, [route('down'), route('limited')])).toBe(false);
    expect(anyRouteAvailable(health, [route('down'), route('fine')])).toBe(true);
    expect(anyRouteAvailable(health, [])).toBe(false);
    expect(anyRouteAvailable(undefined, [route('down')])).toBe(true);
  });
});

describe('StreamWatch', () => {
  it('ends a stream with no token within the first-token limit, as a timeout before its first byte', async () => {
    const { events, error } = await drain(new StreamWatch(new AbortController().signal, { firstTokenMs: 60 }), [[0, role], [200, word('late')]]);
    // The bare role chunk was held back: the client saw nothing, so the next route may answer.
    expect(events).toEqual([]);
    expect(error).toMatchObject({ code: 'upstream_timeout', upstream: { transport: 'timeout' } });
  });

  it('releases what it held with the first visible event, in order', async () => {
    const { events, error } = await drain(new StreamWatch(new AbortController().signal, { firstTokenMs: 500 }), [[0, role], [20, word('Hi')], [0, word(' there')]]);
    expect(error).toBeUndefined();
    expect(events).toEqual([role, word('Hi'), word(' there')]);
  });

  it('ends a stream that stalls mid-answer, but not one that thinks before its answer', async () => {
    const stalled = await drain(new StreamWatch(new AbortController().signal, { stallMs: 60 }), [[0, word('Hi')], [300, word(' late')]]);
    expect(stalled.events).toEqual([word('Hi')]);
    expect(stalled.error).toMatchObject({ code: 'upstream_timeout', message: expect.stringMatching(/stalled/) });
    const thinking = await drain(new StreamWatch(new AbortController().signal, { stallMs: 60 }), [[0, role], [0, thought], [150, word('Hi')]]);
    expect(thinking.error).toBeUndefined();
  });

  it('counts only the time the upstream is awaited, not a slow client', async () => {
    const watch = new StreamWatch(new AbortController().signal, { stallMs: 80 });
    const seen: ChatStreamEvent[] = [];
    try {
      for await (const event of watch.events(upstream(watch.signal, [[0, word('a')], [0, word('b')], [0, word('c')]]))) {
        seen.push(event);
        await sleep(150);
      }
    } finally {
      watch.dispose();
    }
    expect(seen).toHaveLength(3);
  });

  it("follows the request's own abort", async () => {
    const request = new AbortController();
    const watch = new StreamWatch(request.signal, {});
    setTimeout(() => request.abort(new Error('client left')), 30);
    const { error } = await drain(watch, [[0, word('a')], [500, word('b')]]);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe('client left');
  });
});
