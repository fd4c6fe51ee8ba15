import { describe, expect, it } from 'vitest';
import { completeChat } from '../../../src/chat/chat-complete.js';
import { estimateChatCost, estimateChatCostAsync } from '../../../src/chat/chat-estimate.js';
import { promptTokenUpperBoundAsync } from '../../../src/billing/token-count-async.js';
import { anthropicMaxTokens } from '../../../src/providers/anthropic/anthropic-request.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { countMessageTokens } from '../../../src/billing/tokenizer.js';
import type { ChatCapability, ChatResult } from '../../../src/providers/chat/chat-types.js';
import { admitted, recordingTicket, serviceDeps, testModel, type Journal } from './chat-fakes.js';

function answering(result: ChatResult | GatewayError, journal: Journal): ChatCapability {
  return {
    async complete() {
      journal.push('upstream');
      if (result instanceof GatewayError) throw result;
      return result;
    },
    stream: () => { throw new Error('unused'); },
  };
}

const RESULT: ChatResult = {
  choices: [{ index: 0, message: { role: 'assistant', content: 'hi there', reasoning: 'pondering' }, finish_reason: 'stop' }],
  usage: { promptTokens: 12, completionTokens: 8, reasoningTokens: 3 },
  extra: { system_fingerprint: 'fp_1' },
};

describe('completeChat', () => {
  it('charges before answering and reports the exact cost with the catalog id', async () => {
    const journal: Journal = [];
    const { ticket, settles } = recordingTicket(journal);
    const body = await completeChat(serviceDeps(), admitted(answering(RESULT, journal), ticket), new AbortController().signal);
    expect(journal).toEqual(['upstream', 'settled:28000']);
    expect(settles).toEqual([{ cost: 28_000n, units: { prompt: 12, completion: 8 } }]);
    expect(body).toMatchObject({
      id: 'chatcmpl-test', object: 'chat.completion', model: 'test/chat', system_fingerprint: 'fp_1',
      choices: [{ message: { content: 'hi there', reasoning: 'pondering' } }],
      usage: { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20, completion_tokens_details: { reasoning_tokens: 3 }, cost: 0.000028 },
    });
  });

  it('strips message.reasoning when reasoning.exclude is set', async () => {
    const journal: Journal = [];
    const { ticket } = recordingTicket(journal);
    const body = await completeChat(serviceDeps(), admitted(answering(RESULT, journal), ticket, { reasoning: { exclude: true } }), new AbortController().signal);
    expect(JSON.stringify(body)).not.toContain('pondering');
  });

  it('releases the hold and charges nothing when the upstream fails', async () => {
    const journal: Journal = [];
    const { ticket, settles, releases } = recordingTicket(journal);
    const failing = answering(new GatewayError('upstream_error', 'boom'), journal);
    await expect(completeChat(serviceDeps(), admitted(failing, ticket), new AbortController().signal)).rejects.toMatchObject({ code: 'upstream_error' });
    expect(settles).toHaveLength(0);
    expect(releases()).toBe(1);
  });
});

describe('estimateChatCost', () => {
  const messages = [{ role: 'user' as const, content: 'hello there' }];

  it('prices prompt tokens plus the requested completion limit times n', () => {
    const prompt = countMessageTokens(messages);
    const { estimate, promptTokens } = estimateChatCost({ model: 'm', messages, max_tokens: 100, n: 2 }, testModel());
    expect(promptTokens).toBe(prompt);
    // $1/M prompt, $2/M completion: prompt×1000 + 200×2000 nano.
    expect(estimate).toBe(BigInt(prompt) * 1000n + 200n * 2000n);
  });

  it('holds the model output limit (its context length) when max_tokens is absent', () => {
    // The whole context, not context − prompt: the prompt is only bounded from above, so
    // subtracting it could leave the real output room uncovered.
    const prompt = countMessageTokens(messages);
    const { estimate } = estimateChatCost({ model: 'm', messages }, testModel({ context_length: 500 }));
    expect(estimate).toBe(BigInt(prompt) * 1000n + 500n * 2000n);
  });

  it('holds the max_output_tokens of the catalog entry before its context length', () => {
    const prompt = countMessageTokens(messages);
    const { estimate } = estimateChatCost({ model: 'm', messages }, testModel({ context_length: 500, max_output_tokens: 50 }));
    expect(estimate).toBe(BigInt(prompt) * 1000n + 50n * 2000n);
  });

  it('holds what an adapter sends upstream when that exceeds max_tokens (thinking budget + answer)', async () => {
    const body = { model: 'm', messages, max_tokens: 100, reasoning: { max_tokens: 2048 } };
    const upstream = anthropicMaxTokens(body);
    expect(upstream).toBe(2148);
    const prompt = await promptTokenUpperBoundAsync(messages);
    const { estimate, completionTokens } = await estimateChatCostAsync(body, testModel({ context_length: 10_000 }), upstream);
    expect(completionTokens).toBe(2148);
    expect(estimate).toBe(BigInt(prompt) * 1000n + 2148n * 2000n);
  });

  it('says the largest max_tokens that fits a room', () => {
    const prompt = countMessageTokens(messages);
    const { fit } = estimateChatCost({ model: 'm', messages, max_tokens: 400 }, testModel({ context_length: 500 }));
    // Room for the prompt and exactly 123 completion tokens.
    expect(fit(BigInt(prompt) * 1000n + 123n * 2000n)).toMatch(/At most 123 max_tokens fit/);
    expect(fit(BigInt(prompt) * 1000n - 1n)).toMatch(/Not even the prompt fits/);
  });
});
