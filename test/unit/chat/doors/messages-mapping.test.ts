import { describe, expect, it } from 'vitest';
import { readChatChunk } from '../../../../src/chat/doors/chat-chunk-reader.js';
import { completionToMessage, stopReason } from '../../../../src/chat/doors/messages/messages-output.js';
import { messagesRequestSchema } from '../../../../src/chat/doors/messages/messages-schema.js';
import { MessagesStreamTranslator } from '../../../../src/chat/doors/messages/messages-stream.js';
import { messagesToChat, serverToolTypes, untranslatableParam } from '../../../../src/chat/doors/messages/messages-to-chat.js';

const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_tokens_details: { cached_tokens: 4, cache_write_tokens: 2 }, completion_tokens_details: { reasoning_tokens: 0 }, cost: 0.00002, cost_details: [] };

describe('what only a relayed Messages request can carry', () => {
  const base = { model: 'fake/claude', max_tokens: 10 };

  it('accepts server tools and other block types, names them, and leaves them out of the chat mapping', () => {
    const request = messagesRequestSchema.parse({
      ...base,
      tools: [{ name: 'f', input_schema: { type: 'object' } }, { type: 'web_search_20250305', name: 'web_search' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'd' } }] }],
    });
    // Server tools are left out of a translation (and named); a document cannot be carried as text.
    expect(serverToolTypes(request)).toEqual(['web_search_20250305']);
    expect(untranslatableParam(request)).toBe('messages.0.content.1');
    const chat = messagesToChat(request);
    expect(chat.tools).toEqual([{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }]);
    // The document follows as its JSON, so the hold counts it.
    expect(chat.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'user', content: JSON.stringify([{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'd' } }]) },
    ]);
    const searchResult = messagesRequestSchema.parse({ ...base, messages: [{ role: 'user', content: [{ type: 'search_result', source: 's', title: 't', content: [] }] }] });
    expect(untranslatableParam(searchResult)).toBeUndefined();
    expect(untranslatableParam(messagesRequestSchema.parse({ ...base, messages: [{ role: 'user', content: 'plain' }] }))).toBeUndefined();
  });

  it('still refuses a malformed known block and a custom tool without input_schema', () => {
    const badImage = messagesRequestSchema.safeParse({ ...base, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64' } }] }] });
    expect(badImage.success).toBe(false);
    const customTool = messagesRequestSchema.safeParse({ ...base, tools: [{ type: 'custom', name: 'f' }], messages: [{ role: 'user', content: 'x' }] });
    expect(customTool.success).toBe(false);
    const untyped = messagesRequestSchema.safeParse({ ...base, tools: [{ name: 'f' }], messages: [{ role: 'user', content: 'x' }] });
    expect(untyped.success).toBe(false);
  });
});

describe('Messages request → chat request', () => {
  it('maps system blocks, images, tool_use, tool_result, thinking and options', () => {
    const request = messagesRequestSchema.parse({
      model: 'local/echo',
      max_tokens: 300,
      system: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }] },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature: 's' }, { type: 'tool_use', id: 'tu_1', name: 'f', input: { x: 1 } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_1', content: [{ type: 'text', text: 'out' }], is_error: true }, { type: 'text', text: 'next' }] },
      ],
      tools: [{ name: 'f', input_schema: { type: 'object' } }],
      tool_choice: { type: 'any' },
      thinking: { type: 'enabled', budget_tokens: 100 },
      stop_sequences: ['END'],
      temperature: 0,
    });
    expect(messagesToChat(request)).toEqual({
      model: 'local/echo',
      max_tokens: 300,
      stream: false,
      messages: [
        { role: 'system', content: 'a\nb' },
        { role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
        { role: 'assistant', content: null, reasoning: 't', tool_calls: [{ id: 'tu_1', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }] },
        { role: 'tool', tool_call_id: 'tu_1', content: 'Error: out' },
        { role: 'user', content: [{ type: 'text', text: 'next' }] },
      ],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      tool_choice: 'required',
      reasoning: { max_tokens: 100 },
      stop: ['END'],
      temperature: 0,
    });
  });

  it('requires max_tokens', () => {
    expect(messagesRequestSchema.safeParse({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).success).toBe(false);
  });
});

describe('chat completion → Anthropic message', () => {
  it('builds thinking, text and tool_use blocks with the stop reason and costed usage', () => {
    const message = completionToMessage('msg_1', 'local/echo', {
      choices: [{ index: 0, message: { content: 'hi', reasoning: 'why', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] }, finish_reason: 'tool_calls' }],
      usage,
    });
    expect(message).toMatchObject({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      stop_reason: 'tool_use',
      content: [{ type: 'thinking', thinking: 'why' }, { type: 'text', text: 'hi' }, { type: 'tool_use', id: 'c', name: 'f', input: { a: 1 } }],
      usage: { input_tokens: 4, output_tokens: 5, cache_read_input_tokens: 4, cache_creation_input_tokens: 2, cost: 0.00002 },
    });
  });

  it.each([['stop', 'end_turn'], ['length', 'max_tokens'], ['tool_calls', 'tool_use']])('maps finish %s to %s', (finish, stop) => {
    expect(stopReason(finish)).toBe(stop);
  });
});

describe('chat stream → Anthropic events', () => {
  const run = (chunks: unknown[]) => {
    const t = new MessagesStreamTranslator({ id: 'msg_s', model: 'm', inputTokens: 7 });
    return [...t.start(), ...chunks.flatMap((c) => readChatChunk(c).flatMap((p) => t.part(p))), ...t.end()];
  };
  const delta = (d: Record<string, unknown>, finish: string | null = null) => ({ choices: [{ index: 0, delta: d, finish_reason: finish }] });

  it('numbers blocks and closes each before the next', () => {
    const events = run([
      delta({ reasoning: 'r' }),
      delta({ content: 'a' }),
      delta({ tool_calls: [{ index: 0, id: 'c', function: { name: 'f', arguments: '{' } }] }),
      delta({ tool_calls: [{ index: 0, function: { arguments: '}' } }] }, 'tool_calls'),
      { choices: [], usage },
    ]);
    expect(events.map((e) => [e.type, e.index])).toEqual([
      ['message_start', undefined],
      ['content_block_start', 0], ['content_block_delta', 0], ['content_block_stop', 0],
      ['content_block_start', 1], ['content_block_delta', 1], ['content_block_stop', 1],
      ['content_block_start', 2], ['content_block_delta', 2], ['content_block_delta', 2], ['content_block_stop', 2],
      ['message_delta', undefined], ['message_stop', undefined],
    ]);
    expect(events.at(-2)).toMatchObject({ delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 5, cost: 0.00002 } });
  });

  it('reports an error after the usage, in place of message_stop', () => {
    const events = run([delta({ content: 'a' }), { error: { message: 'boom', type: 'upstream_error', code: 'upstream_error', param: null }, choices: [] }, { choices: [], usage }]);
    expect(events.slice(-2).map((e) => e.type)).toEqual(['message_delta', 'error']);
    expect(events.at(-1)).toMatchObject({ error: { type: 'upstream_error', message: 'boom' } });
  });
});

describe('what coding agents send on the Messages API', () => {
  const base = { model: 'fake/claude', max_tokens: 64 };

  it('accepts system turns mid-conversation and keeps them as system content where they stand', () => {
    const request = messagesRequestSchema.parse({
      ...base,
      messages: [
        { role: 'user', content: 'first' },
        { role: 'system', content: [{ type: 'text', text: 'mind the tests' }] },
        { role: 'assistant', content: 'ok' },
      ],
    });
    expect(messagesToChat(request).messages).toEqual([
      { role: 'user', content: 'first' },
      { role: 'system', content: 'mind the tests' },
      { role: 'assistant', content: 'ok' },
    ]);
  });

  it.each([
    [{ type: 'adaptive' }, undefined, { effort: 'medium' }],
    [{ type: 'adaptive', display: 'omitted' }, { effort: 'low' }, { effort: 'low', exclude: true }],
    [{ type: 'adaptive' }, { effort: 'max' }, { effort: 'high' }],
    [{ type: 'enabled', budget_tokens: 2048 }, undefined, { max_tokens: 2048 }],
    [{ type: 'disabled' }, undefined, undefined],
  ])('maps thinking %j (output_config %j) to reasoning %j', (thinking, outputConfig, reasoning) => {
    const request = messagesRequestSchema.parse({ ...base, thinking, ...(outputConfig ? { output_config: outputConfig } : {}), messages: [{ role: 'user', content: 'x' }] });
    expect(messagesToChat(request).reasoning).toEqual(reasoning);
  });

  it('still checks a thinking budget, and accepts tool names up to 128 characters', () => {
    expect(messagesRequestSchema.safeParse({ ...base, thinking: { type: 'enabled' }, messages: [{ role: 'user', content: 'x' }] }).success).toBe(false);
    const long = 'mcp__server__'.padEnd(128, 'x');
    const request = messagesRequestSchema.parse({ ...base, tools: [{ name: long, input_schema: { type: 'object' } }], messages: [{ role: 'user', content: 'x' }] });
    expect((messagesToChat(request).tools as Array<{ function: { name: string } }>)[0]?.function.name).toBe(long);
  });
});
