import { describe, expect, it } from 'vitest';
import { completeChat } from '../../../src/chat/chat-complete.js';
import { estimateChatCost } from '../../../src/chat/admit/chat-estimate.js';
import { promptTokenBound } from '../../../src/chat/admit/prompt-bound.js';
import { anthropicMaxTokens } from '../../../src/providers/anthropic/anthropic-request.js';
import { GatewayError } from '../../../src/platform/errors/gateway-error.js';
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
    expect(settles).toEqual([{ cost: 28_000n, units: { prompt: 12, completion: 8 - 3, internal_reasoning: 3 } }]);
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
  // Holds add a few nano-dollars so per-line rounding can never take a charge above them.
  const MARGIN = 8n;

  it('prices the input bound plus the requested completion limit times n', async () => {
    const body = { model: 'm', messages, max_tokens: 100, n: 2 };
    const prompt = await promptTokenBound(body, testModel());
    const { estimate, promptTokens } = await estimateChatCost(body, testModel());
    expect(promptTokens).toBe(prompt);
    expect(prompt).toBeGreaterThan(countMessageTokens(messages));
    // $1/M prompt, $2/M completion: prompt×1000 + 200×2000 nano.
    expect(estimate).toBe(BigInt(prompt) * 1000n + 200n * 2000n + MARGIN);
  });

  it('holds the model output limit (its context length) when max_tokens is absent', async () => {
    const model = testModel({ context_length: 500 });
    const prompt = await promptTokenBound({ model: 'm', messages }, model);
    const { estimate } = await estimateChatCost({ model: 'm', messages }, model);
    expect(estimate).toBe(BigInt(prompt) * 1000n + 500n * 2000n + MARGIN);
  });

  it('holds the max_output_tokens of the catalog entry before its context length', async () => {
    const model = testModel({ context_length: 500, max_output_tokens: 50 });
    const prompt = await promptTokenBound({ model: 'm', messages }, model);
    const { estimate } = await estimateChatCost({ model: 'm', messages }, model);
    expect(estimate).toBe(BigInt(prompt) * 1000n + 50n * 2000n + MARGIN);
  });

  it('holds the smaller of max_tokens and max_completion_tokens, the limit that is sent', async () => {
    const { perChoice } = await estimateChatCost({ model: 'm', messages, max_tokens: 5000, max_completion_tokens: 5 }, testModel({ context_length: 10_000 }));
    expect(perChoice).toBe(5);
  });

  it('holds what an adapter sends upstream when that exceeds max_tokens (thinking budget + answer)', async () => {
    const body = { model: 'm', messages, max_tokens: 100, reasoning: { max_tokens: 2048 } };
    const upstream = anthropicMaxTokens(body);
    expect(upstream).toBe(2148);
    const model = testModel({ context_length: 10_000 });
    const prompt = await promptTokenBound(body, model);
    const { estimate, completionTokens } = await estimateChatCost(body, model, upstream);
    expect(completionTokens).toBe(2148);
    expect(estimate).toBe(BigInt(prompt) * 1000n + 2148n * 2000n + MARGIN);
  });

  it('says the largest max_tokens that fits a room', async () => {
    const model = testModel({ context_length: 500 });
    const body = { model: 'm', messages, max_tokens: 400 };
    const prompt = await promptTokenBound(body, model);
    const { fit } = await estimateChatCost(body, model);
    // Room for the input and exactly 123 completion tokens.
    expect(fit(BigInt(prompt) * 1000n + 123n * 2000n + MARGIN)).toMatch(/At most 123 max_tokens fit/);
    expect(fit(BigInt(prompt) * 1000n - 1n)).toMatch(/Not even the input fits/);
  });
});
