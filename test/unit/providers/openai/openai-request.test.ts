import { describe, expect, it } from 'vitest';
import type { ChatRequestBody } from '../../../../src/providers/chat/chat-types.js';
import { toOpenAiRequest } from '../../../../src/providers/openai/openai-request.js';
import { openAiSchema, schemaErrors } from '../../../helpers/openai-spec.js';

const validate = openAiSchema('CreateChatCompletionRequest');

function expectValid(body: unknown): void {
  const ok = validate(body);
  expect(ok, schemaErrors(validate)).toBe(true);
}

const FULL: ChatRequestBody = {
  model: 'openai/gpt-4o',
  messages: [
    { role: 'developer', content: 'Be brief.' },
    { role: 'system', content: 'You are helpful.' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'What is in this image?' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'low' } },
      ],
    },
    {
      role: 'assistant',
      content: null,
      reasoning: 'internal thoughts',
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }],
    },
    { role: 'tool', tool_call_id: 'call_1', content: '{"found":true}' },
  ],
  tools: [{ type: 'function', function: { name: 'lookup', description: 'Look up', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } } }],
  tool_choice: { type: 'function', function: { name: 'lookup' } },
  response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object' }, strict: true } },
  max_completion_tokens: 300,
  temperature: 0.2,
  top_p: 0.9,
  stop: ['END'],
  seed: 7,
  n: 1,
  user: 'someone',
  logit_bias: { '50256': -100 },
};

describe('toOpenAiRequest', () => {
  it('sends a spec-valid body with the upstream model and all client fields', () => {
    const sent = toOpenAiRequest(FULL, 'gpt-4o-2024-08-06', false);
    expectValid(sent);
    expect(sent.model).toBe('gpt-4o-2024-08-06');
    expect(sent.tools).toEqual(FULL.tools);
    expect(sent.response_format).toEqual(FULL.response_format);
    expect(sent.user).toBe('someone');
    expect(sent.logit_bias).toEqual({ '50256': -100 });
    expect(sent.stream).toBeUndefined();
    expect(sent.stream_options).toBeUndefined();
  });

  it('drops gateway-only reasoning from history messages', () => {
    const sent = toOpenAiRequest(FULL, 'gpt-4o', false);
    const messages = sent.messages as Array<Record<string, unknown>>;
    expect(messages[3]).not.toHaveProperty('reasoning');
    expect(messages[3]?.tool_calls).toEqual(FULL.messages[3]?.tool_calls);
  });

  it('always asks streams for the usage chunk, keeping client stream options', () => {
    const sent = toOpenAiRequest({ ...FULL, stream: true, stream_options: { include_obfuscation: false } }, 'gpt-4o', true);
    expectValid(sent);
    expect(sent.stream).toBe(true);
    expect(sent.stream_options).toEqual({ include_obfuscation: false, include_usage: true });
    const plain = toOpenAiRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: false } }, 'gpt-4o', true);
    expect(plain.stream_options).toEqual({ include_usage: true });
  });

  it.each([
    [{ reasoning: { effort: 'high' as const } }, 'high'],
    [{ reasoning: { enabled: true } }, 'medium'],
    [{ reasoning: { max_tokens: 512 } }, 'low'],
    [{ reasoning: { max_tokens: 30000 } }, 'high'],
    [{ reasoning: { exclude: true } }, 'medium'],
    [{ include_reasoning: true }, 'medium'],
  ])('maps %j to reasoning_effort %s and strips gateway fields', (extra, effort) => {
    const sent = toOpenAiRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }], ...extra }, 'o3', false);
    expectValid(sent);
    expect(sent.reasoning_effort).toBe(effort);
    expect(sent).not.toHaveProperty('reasoning');
    expect(sent).not.toHaveProperty('include_reasoning');
  });

  it('sends no reasoning_effort when reasoning is off or not asked for', () => {
    const off = toOpenAiRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }], reasoning: { enabled: false, effort: 'high' } }, 'o3', false);
    expect(off).not.toHaveProperty('reasoning_effort');
    const none = toOpenAiRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }], include_reasoning: false }, 'o3', false);
    expect(none).not.toHaveProperty('reasoning_effort');
  });

  it("keeps the client's own reasoning_effort", () => {
    const sent = toOpenAiRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'minimal', reasoning: { effort: 'high' } }, 'o3', false);
    expect(sent.reasoning_effort).toBe('minimal');
  });

  it('the spec validator rejects what OpenAI would reject (the check can fail)', () => {
    expect(validate({ model: 'gpt-4o', messages: [{ role: 'robot', content: 'hi' }] })).toBe(false);
    expect(validate({ model: 'gpt-4o', messages: [] })).toBe(false);
  });
});
