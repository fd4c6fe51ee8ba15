import { describe, expect, it } from 'vitest';
import { choiceWire, deltaWire } from '../../../../src/chat/wire/chat-wire.js';
import { readReasoning } from '../../../../src/providers/chat/reasoning-options.js';
import { toAnthropicRequest } from '../../../../src/providers/anthropic/anthropic-request.js';
import type { ChatRequestBody } from '../../../../src/providers/chat/chat-types.js';
import { toOpenAiRequest } from '../../../../src/providers/openai/openai-request.js';

const base: ChatRequestBody = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };

describe('readReasoning', () => {
  it.each([
    [{ reasoning_effort: 'low' }, { enabled: true, effort: 'low', exclude: false }],
    [{ reasoning_effort: 'xhigh' }, { enabled: true, effort: 'high', exclude: false }],
    [{ reasoning_effort: 'none' }, { enabled: false, exclude: false }],
    [{ reasoning_effort: 'bogus' }, { enabled: false, exclude: false }],
    // OpenRouter's object wins over OpenAI's field when both are sent.
    [{ reasoning_effort: 'high', reasoning: { effort: 'low' } }, { enabled: true, effort: 'low', exclude: false }],
    [{ reasoning_effort: 'high', reasoning: { exclude: true } }, { enabled: true, effort: 'high', exclude: true }],
    [{ include_reasoning: true }, { enabled: true, effort: 'medium', exclude: false }],
    [{}, { enabled: false, exclude: false }],
  ])('reads %j', (extra, expected) => {
    expect(readReasoning({ ...base, ...extra } as ChatRequestBody)).toEqual(expected);
  });

  it('maps reasoning_effort to an Anthropic thinking budget and passes it to OpenAI-style upstreams', () => {
    expect(toAnthropicRequest({ ...base, reasoning_effort: 'high' }, 'claude', false).thinking).toEqual({ type: 'enabled', budget_tokens: 16384 });
    expect(toAnthropicRequest({ ...base, reasoning_effort: 'none' }, 'claude', false)).not.toHaveProperty('thinking');
    expect(toOpenAiRequest({ ...base, reasoning_effort: 'low' }, 'o4-mini', false).reasoning_effort).toBe('low');
    expect(toOpenAiRequest({ ...base, reasoning: { effort: 'high' } }, 'o4-mini', false).reasoning_effort).toBe('high');
  });

  it('keeps both reasoning names out of the history sent to OpenAI-style upstreams', () => {
    const messages: ChatRequestBody['messages'] = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'a', reasoning: 'r', reasoning_content: 'r' },
      { role: 'user', content: 'q2' },
    ];
    const sent = toOpenAiRequest({ ...base, messages }, 'deepseek-reasoner', false).messages as Array<Record<string, unknown>>;
    expect(sent[1]).toEqual({ role: 'assistant', content: 'a' });
  });
});

describe('chat wire', () => {
  it('fills the fields the spec requires and names reasoning both ways', () => {
    const wire = choiceWire({ index: 0, message: { role: 'assistant', content: 'x', reasoning: 'why' }, finish_reason: 'stop' });
    expect(wire).toEqual({
      index: 0,
      message: { role: 'assistant', content: 'x', refusal: null, reasoning: 'why', reasoning_content: 'why' },
      logprobs: null,
      finish_reason: 'stop',
    });
  });

  it('relays logprobs, refusal and annotations as sent', () => {
    const logprobs = { content: [], refusal: null };
    const wire = choiceWire({ index: 1, message: { role: 'assistant', content: null, refusal: 'no', annotations: [{ type: 'url_citation' }] }, finish_reason: 'stop', logprobs });
    expect(wire).toMatchObject({ logprobs, message: { refusal: 'no', annotations: [{ type: 'url_citation' }] } });
    expect(wire.message).not.toHaveProperty('reasoning_content');
  });

  it('streams reasoning under both names and logprobs only when present', () => {
    expect(deltaWire({ index: 0, delta: { reasoning: 'r' }, finish_reason: null })).toEqual({ index: 0, delta: { reasoning: 'r', reasoning_content: 'r' }, finish_reason: null });
    expect(deltaWire({ index: 0, delta: { content: 'c' }, finish_reason: null, logprobs: { content: [] } })).toEqual({
      index: 0, delta: { content: 'c' }, finish_reason: null, logprobs: { content: [] },
    });
  });
});
