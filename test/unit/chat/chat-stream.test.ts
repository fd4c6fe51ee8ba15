import { describe, expect, it } from 'vitest';
import { streamChat } from '../../../src/chat/chat-stream.js';
import { GatewayError } from '../../../src/platform/errors/gateway-error.js';
import { countTokens } from '../../../src/billing/tokenizer.js';
import type { ChatCapability, ChatStreamEvent } from '../../../src/providers/chat/chat-types.js';
import { admitted, memorySink, recordingTicket, serviceDeps, type Journal } from './chat-fakes.js';

const delta = (content: string, extra: Record<string, unknown> = {}): ChatStreamEvent => ({
  kind: 'delta',
  choices: [{ index: 0, delta: { content, ...extra }, finish_reason: null }],
});
const usage = (promptTokens: number, completionTokens: number): ChatStreamEvent => ({
  kind: 'usage',
  usage: { promptTokens, completionTokens, reasoningTokens: 0 },
});

/** A capability whose stream yields the given items, then optionally throws. */
function scripted(items: ChatStreamEvent[], failAt?: { index: number; error: GatewayError }) {
  const seen = { returned: false, signal: undefined as AbortSignal | undefined };
  const chat: ChatCapability = {
    complete: async () => { throw new Error('unused'); },
    async *stream(call) {
      seen.signal = call.signal;
      try {
        for (const [i, item] of items.entries()) {
          if (failAt?.index === i) throw failAt.error;
          yield item;
        }
        if (failAt?.index === items.length) throw failAt.error;
      } finally {
        seen.returned = true;
      }
    },
  };
  return { chat, seen };
}

describe('streamChat', () => {
  it('relays deltas, charges upstream usage durably, then sends the usage chunk and [DONE]', async () => {
    const journal: Journal = [];
    const { ticket, settles } = recordingTicket(journal);
    const { sink, chunks, state } = memorySink(journal);
    const { chat } = scripted([delta('Hel'), delta('lo'), usage(10, 5)]);
    await streamChat(serviceDeps(), admitted(chat, ticket, { stream: true }), sink, new AbortController().signal);
    expect(journal).toEqual(['open', 'chunk', 'chunk', 'settled:20000', 'usage-chunk', 'done']);
    expect(settles).toEqual([{ cost: 20_000n, units: { prompt: 10, completion: 5 } }]);
    expect(chunks[0]).toMatchObject({ id: 'chatcmpl-test', object: 'chat.completion.chunk', model: 'test/chat', choices: [{ delta: { content: 'Hel' } }] });
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, completion_tokens_details: { reasoning_tokens: 0 }, cost: 0.00002 },
    });
    expect(state().finished).toBe(true);
  });

  it('turns a mid-stream failure into an error chunk, then bills the produced text and ends cleanly', async () => {
    const journal: Journal = [];
    const { ticket, settles } = recordingTicket(journal);
    const { sink, chunks } = memorySink(journal);
    const text = 'some produced words';
    const { chat } = scripted([delta(text)], { index: 1, error: new GatewayError('upstream_error', 'broken stream') });
    await streamChat(serviceDeps(), admitted(chat, ticket, { stream: true }), sink, new AbortController().signal);
    expect(journal).toEqual(['open', 'chunk', 'chunk', 'settled:' + String(settles[0]?.cost), 'usage-chunk', 'done']);
    expect(chunks[1]).toMatchObject({ error: { code: 'upstream_error', type: 'upstream_error' }, choices: [{ index: 0, delta: {}, finish_reason: 'error' }] });
    expect(settles).toHaveLength(1);
    // No usage came: the prompt is counted as the vendor counts it (3 framing tokens for the
    // message, its role, 'hello', 3 priming the reply), not by the admission bound (10).
    expect(settles[0]?.units).toEqual({ prompt: 3 + countTokens('user') + countTokens('hello') + 3, completion: countTokens(text) });
  });

  it('answers errors before the first item as thrown GatewayErrors, releasing the hold without a charge', async () => {
    const journal: Journal = [];
    const { ticket, settles, releases } = recordingTicket(journal);
    const { sink, state } = memorySink(journal);
    const { chat } = scripted([], { index: 0, error: new GatewayError('rate_limited', 'slow down', { retryAfterSeconds: 3 }) });
    const run = streamChat(serviceDeps(), admitted(chat, ticket, { stream: true }), sink, new AbortController().signal);
    await expect(run).rejects.toMatchObject({ code: 'rate_limited', retryAfterSeconds: 3 });
    expect(state().opened).toBe(false);
    expect(settles).toHaveLength(0);
    expect(releases()).toBe(1);
  });

  it('keeps reading for the upstream usage when the client leaves, then stops it and bills that usage once', async () => {
    const journal: Journal = [];
    const { ticket, settles } = recordingTicket(journal);
    const { sink, chunks } = memorySink(journal, 2);
    const { chat, seen } = scripted([delta('one '), delta('two '), delta('three'), usage(10, 99)]);
    await streamChat(serviceDeps(), admitted(chat, ticket, { stream: true }), sink, new AbortController().signal);
    expect(seen.returned).toBe(true);
    expect(chunks).toHaveLength(2);
    expect(settles).toEqual([{ cost: expect.any(BigInt), units: { prompt: 10, completion: 99 } }]);
    expect(journal).not.toContain('done');
  });

  it('strips reasoning deltas when reasoning.exclude is set, but still bills them', async () => {
    const journal: Journal = [];
    const { ticket, settles } = recordingTicket(journal);
    const { sink, chunks } = memorySink(journal);
    const items: ChatStreamEvent[] = [
      { kind: 'delta', choices: [{ index: 0, delta: { reasoning: 'thinking hard' }, finish_reason: null }] },
      delta('answer'),
    ];
    const { chat } = scripted(items, { index: 2, error: new GatewayError('upstream_timeout', 'slow') });
    await streamChat(serviceDeps(), admitted(chat, ticket, { stream: true, reasoning: { exclude: true } }), sink, new AbortController().signal);
    expect(JSON.stringify(chunks)).not.toContain('thinking');
    expect(chunks[0]).toMatchObject({ choices: [{ delta: { content: 'answer' } }] });
    expect(settles[0]?.units).toEqual({ prompt: 3 + countTokens('user') + countTokens('hello') + 3, completion: countTokens('answer'), internal_reasoning: countTokens('thinking hard') });
  });

  it('does not report a cost whose charge failed, but still ends the stream', async () => {
    const journal: Journal = [];
    const { ticket } = recordingTicket(journal, { failSettle: true });
    const { sink, chunks, state } = memorySink(journal);
    const { chat } = scripted([delta('x'), usage(1, 1)]);
    await streamChat(serviceDeps(), admitted(chat, ticket, { stream: true }), sink, new AbortController().signal);
    expect(chunks.some((c) => c.usage !== undefined)).toBe(false);
    expect(chunks.at(-1)).toMatchObject({ error: { code: 'internal_error' } });
    expect(state().finished).toBe(true);
  });
});

describe('streamChat before the stream opened', () => {
  it('charges nothing when the client left before the first item arrived', async () => {
    const journal: Journal = [];
    const { ticket, settles, releases } = recordingTicket(journal);
    const { sink, state } = memorySink(journal, 0);
    await sink.send({ probe: true });
    const { chat, seen } = scripted([delta('late'), usage(10, 5)]);
    await streamChat(serviceDeps(), admitted(chat, ticket, { stream: true }), sink, new AbortController().signal);
    expect(state().opened).toBe(false);
    expect(settles).toHaveLength(0);
    expect(releases()).toBe(1);
    expect(seen.returned).toBe(true);
  });
});
