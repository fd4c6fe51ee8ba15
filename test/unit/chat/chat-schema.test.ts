import { describe, expect, it } from 'vitest';
import { chatRequestSchema, MAX_MESSAGES, MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES, toChatRequestBody } from '../../../src/chat/wire/chat-schema.js';
import { validate } from '../../../src/platform/validation/validate.js';
import { GatewayError } from '../../../src/platform/errors/gateway-error.js';

const PNG_1X1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const user = [{ role: 'user', content: 'hi' }];

/** A schema whose properties nest `levels` objects deep. */
function deep(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 1; i < levels; i++) schema = { type: 'object', properties: { p: schema } };
  return schema;
}

function paramOf(body: unknown): string | null {
  try {
    validate(chatRequestSchema, body);
  } catch (err) {
    if (err instanceof GatewayError) {
      expect(err.code).toBe('invalid_request');
      return err.param;
    }
    throw err;
  }
  throw new Error('expected a validation error');
}

describe('chat request schema', () => {
  it.each([
    ['missing messages', { model: 'm' }, 'messages'],
    ['messages not an array', { model: 'm', messages: 'hi' }, 'messages'],
    ['empty messages', { model: 'm', messages: [] }, 'messages'],
    ['unknown role', { model: 'm', messages: [{ role: 'wizard', content: 'x' }] }, 'messages.0.role'],
    ['mistyped content', { model: 'm', messages: [{ role: 'user', content: 5 }] }, 'messages.0.content'],
    ['tool message without tool_call_id', { model: 'm', messages: [{ role: 'tool', content: 'x' }] }, 'messages.0.tool_call_id'],
    ['missing model', { messages: user }, 'model'],
    ['bad tool name', { model: 'm', messages: user, tools: [{ type: 'function', function: { name: 'has space' } }] }, 'tools.0.function.name'],
    ['tool parameters not an object', { model: 'm', messages: user, tools: [{ type: 'function', function: { name: 'f', parameters: 'x' } }] }, 'tools.0.function.parameters'],
    ['n too large', { model: 'm', messages: user, n: 9 }, 'n'],
    ['n zero', { model: 'm', messages: user, n: 0 }, 'n'],
    ['max_tokens zero', { model: 'm', messages: user, max_tokens: 0 }, 'max_tokens'],
    ['max_tokens fractional', { model: 'm', messages: user, max_tokens: 1.5 }, 'max_tokens'],
    ['max_completion_tokens huge', { model: 'm', messages: user, max_completion_tokens: 10_000_000 }, 'max_completion_tokens'],
    ['temperature above 2', { model: 'm', messages: user, temperature: 2.5 }, 'temperature'],
    ['top_p above 1', { model: 'm', messages: user, top_p: 1.1 }, 'top_p'],
    ['json_schema without schema', { model: 'm', messages: user, response_format: { type: 'json_schema', json_schema: { name: 'x' } } }, 'response_format.json_schema.schema'],
    ['unknown response_format', { model: 'm', messages: user, response_format: { type: 'xml' } }, 'response_format.type'],
    ['bad reasoning effort', { model: 'm', messages: user, reasoning: { effort: 'max' } }, 'reasoning.effort'],
    ['bad reasoning_effort', { model: 'm', messages: user, reasoning_effort: 'max' }, 'reasoning_effort'],
    ['stream not boolean', { model: 'm', messages: user, stream: 'yes' }, 'stream'],
    ['too many messages', { model: 'm', messages: Array.from({ length: MAX_MESSAGES + 1 }, () => user[0]) }, 'messages'],
    ['too many content parts', { model: 'm', messages: [{ role: 'user', content: Array.from({ length: 1_025 }, () => ({ type: 'text', text: 'x' })) }] }, 'messages.0.content'],
    ['too many tools', { model: 'm', messages: user, tools: Array.from({ length: 129 }, (_, i) => ({ type: 'function', function: { name: `f${i}` } })) }, 'tools'],
    ['a tool schema nested too deep', { model: 'm', messages: user, tools: [{ type: 'function', function: { name: 'f', parameters: deep(MAX_SCHEMA_DEPTH + 1) } }] }, 'tools.0.function.parameters'],
    ['a tool schema with too many values', { model: 'm', messages: user, tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', enum: Array.from({ length: MAX_SCHEMA_NODES }, (_, i) => i) } } }] }, 'tools.0.function.parameters'],
    ['a response schema nested too deep', { model: 'm', messages: user, response_format: { type: 'json_schema', json_schema: { name: 'x', schema: deep(MAX_SCHEMA_DEPTH + 1) } } }, 'response_format.json_schema.schema'],
    ['five stop sequences', { model: 'm', messages: user, stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop'],
    ['a stop sequence too long', { model: 'm', messages: user, stop: ['x'.repeat(1_025)] }, 'stop.0'],
    ['n over eight', { model: 'm', messages: user, n: 128 }, 'n'],
  ])('rejects %s', (_name, body, param) => {
    expect(paramOf(body)).toBe(param);
  });

  it.each([
    ['non-base64 data URL', 'data:image/png;base64,@@not-base64@@'],
    ['base64 that is not an image', `data:image/png;base64,${Buffer.from('plain text, not pixels').toString('base64')}`],
    ['plain http URL', 'http://example.com/cat.png'],
    ['data URL without base64 flag', 'data:image/png,abcd'],
  ])('rejects an image part with a %s, naming the url field', (_name, url) => {
    const body = { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'what?' }, { type: 'image_url', image_url: { url } }] }] };
    expect(paramOf(body)).toBe('messages.0.content.1.image_url.url');
  });

  it('accepts a full request and keeps unknown fields for OpenAI-compatible upstreams', () => {
    const parsed = validate(chatRequestSchema, {
      model: 'local/echo',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: [{ type: 'text', text: 'see' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_1X1}` } }, { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'low' } }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } }],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' }, strict: true } },
      max_tokens: 100, n: 2, temperature: 0, top_p: 1, stop: ['\n'], seed: 7, stream: true,
      stream_options: { include_usage: true }, reasoning: { effort: 'low', exclude: true }, include_reasoning: false,
      logit_bias: { '50256': -100 }, user: 'someone',
    });
    const body = toChatRequestBody(parsed);
    expect(body.logit_bias).toEqual({ '50256': -100 });
    expect(body.user).toBe('someone');
    expect(body.n).toBe(2);
  });

  it('drops explicit nulls that SDKs send for unset options', () => {
    const body = toChatRequestBody(validate(chatRequestSchema, { model: 'm', messages: user, max_tokens: null, temperature: null }));
    expect('max_tokens' in body).toBe(false);
    expect('temperature' in body).toBe(false);
  });
});

describe('chat request size limits', () => {
  it('accepts schemas nested as deep as OpenAI structured outputs allow (10 levels)', () => {
    expect(() => validate(chatRequestSchema, { model: 'm', messages: user, tools: [{ type: 'function', function: { name: 'f', parameters: deep(10) } }] })).not.toThrow();
  });
});
