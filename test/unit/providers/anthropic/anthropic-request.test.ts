import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/platform/errors/gateway-error.js';
import type { ChatRequestBody } from '../../../../src/providers/chat/chat-types.js';
import { toAnthropicRequest } from '../../../../src/providers/anthropic/anthropic-request.js';

const user = (content: string) => ({ role: 'user' as const, content });

function build(extra: Partial<ChatRequestBody>, stream = false) {
  return toAnthropicRequest({ model: 'anthropic/claude', messages: [user('Hi')], ...extra }, 'claude-sonnet-4-5', stream);
}

describe('toAnthropicRequest', () => {
  it('moves system and developer messages to the top-level system', () => {
    const sent = build({ messages: [{ role: 'system', content: 'Be kind.' }, { role: 'developer', content: [{ type: 'text', text: 'Be brief.' }] }, user('Hi')] });
    expect(sent.system).toBe('Be kind.\n\nBe brief.');
    expect(sent.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }]);
    expect(sent.model).toBe('claude-sonnet-4-5');
  });

  it('maps a tool round trip and merges consecutive same-role turns', () => {
    const sent = build({
      messages: [
        user('Weather in Paris and Rome?'),
        { role: 'assistant', content: 'Checking.', reasoning: 'hidden', tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_2', type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } },
        ] },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
        { role: 'tool', tool_call_id: 'call_2', content: 'rain' },
        user('Thanks'),
      ],
    });
    expect(sent.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Rome?' }] },
      { role: 'assistant', content: [
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'call_1', name: 'weather', input: { city: 'Paris' } },
        { type: 'tool_use', id: 'call_2', name: 'weather', input: { city: 'Rome' } },
      ] },
      { role: 'user', content: [
        { type: 'tool_result', tool_use_id: 'call_1', content: [{ type: 'text', text: 'sunny' }] },
        { type: 'tool_result', tool_use_id: 'call_2', content: [{ type: 'text', text: 'rain' }] },
        { type: 'text', text: 'Thanks' },
      ] },
    ]);
  });

  it('maps data URL images to base64 sources and https URLs to url sources', () => {
    const sent = build({ messages: [{ role: 'user', content: [
      { type: 'text', text: 'Compare' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
      { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
    ] }] });
    expect((sent.messages as Array<{ content: unknown[] }>)[0]?.content).toEqual([
      { type: 'text', text: 'Compare' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
    ]);
  });

  it('rejects non-base64 data URLs and bad tool arguments with the param path', () => {
    expect(() => build({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png,abc' } }] }] })).toThrow(
      expect.objectContaining({ code: 'invalid_request', param: 'messages.0.content.0.image_url.url' }),
    );
    expect(() => build({ messages: [user('x'), { role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{' } }] }] })).toThrow(GatewayError);
  });

  it.each([
    ['auto', { type: 'auto' }],
    ['none', { type: 'none' }],
    ['required', { type: 'any' }],
    [{ type: 'function', function: { name: 'weather' } }, { type: 'tool', name: 'weather' }],
  ])('maps tool_choice %j', (choice, expected) => {
    const sent = build({ tools: [{ type: 'function', function: { name: 'weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }], tool_choice: choice });
    expect(sent.tool_choice).toEqual(expected);
    expect(sent.tools).toEqual([{ name: 'weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }]);
  });

  it('defaults max_tokens and honours max_completion_tokens over max_tokens', () => {
    expect(build({}).max_tokens).toBe(4096);
    expect(build({ max_tokens: 100 }).max_tokens).toBe(100);
    expect(build({ max_tokens: 100, max_completion_tokens: 200 }).max_tokens).toBe(200);
  });

  it.each([
    [{ effort: 'low' as const }, 1024],
    [{ effort: 'medium' as const }, 4096],
    [{ effort: 'high' as const }, 16384],
    [{ enabled: true }, 4096],
    [{ max_tokens: 2000, effort: 'high' as const }, 2000],
    [{ max_tokens: 10 }, 1024],
  ])('maps reasoning %j to a thinking budget of %d above which max_tokens stays', (reasoning, budget) => {
    const sent = build({ reasoning, max_tokens: 1500, temperature: 0.5 });
    expect(sent.thinking).toEqual({ type: 'enabled', budget_tokens: budget });
    expect(sent.max_tokens as number).toBeGreaterThan(budget);
    expect(sent).not.toHaveProperty('temperature');
  });

  it('drops thinking when a tool call is forced (Anthropic allows thinking only with auto/none)', () => {
    const tools = [{ type: 'function' as const, function: { name: 'weather' } }];
    expect(build({ tools, tool_choice: 'required', reasoning: { effort: 'high' } })).not.toHaveProperty('thinking');
    expect(build({ tools, tool_choice: 'auto', reasoning: { effort: 'high' } }).thinking).toEqual({ type: 'enabled', budget_tokens: 16384 });
  });

  it('sends no thinking unless asked', () => {
    expect(build({})).not.toHaveProperty('thinking');
    expect(build({ reasoning: { enabled: false } })).not.toHaveProperty('thinking');
    expect(build({ include_reasoning: true }).thinking).toEqual({ type: 'enabled', budget_tokens: 4096 });
  });

  it('maps stop, temperature, user and stream; asks for JSON through the system prompt', () => {
    const sent = build({ stop: 'END', temperature: 1.7, user: 'u1', response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object', required: ['a'] } } } }, true);
    expect(sent.stop_sequences).toEqual(['END']);
    expect(sent.temperature).toBe(1);
    expect(sent.metadata).toEqual({ user_id: 'u1' });
    expect(sent.stream).toBe(true);
    expect(sent.system).toContain('JSON');
    expect(sent.system).toContain('"required":["a"]');
    expect(build({ response_format: { type: 'json_object' } }).system).toContain('JSON object');
  });

  it('refuses n > 1', () => {
    expect(() => build({ n: 2 })).toThrow(expect.objectContaining({ code: 'invalid_request', param: 'n' }));
  });
});
