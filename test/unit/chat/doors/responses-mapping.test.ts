import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/platform/errors/gateway-error.js';
import { readChatChunk } from '../../../../src/chat/doors/chat-chunk-reader.js';
import { completionToResponse, responseIds } from '../../../../src/chat/doors/responses/responses-output.js';
import { responsesRequestSchema, type ResponsesRequest } from '../../../../src/chat/doors/responses/responses-schema.js';
import { ResponsesStreamTranslator } from '../../../../src/chat/doors/responses/responses-stream.js';
import { forcedHostedTool, responsesToChat, untranslatablePart } from '../../../../src/chat/doors/responses/responses-to-chat.js';
import { translateTools } from '../../../../src/chat/doors/responses/responses-tools.js';

const parse = (body: Record<string, unknown>): ResponsesRequest => responsesRequestSchema.parse({ model: 'local/echo', ...body });
const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_tokens_details: { cached_tokens: 4, cache_write_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 2 }, cost: 0.00002, cost_details: [] };

describe('Responses request → chat request', () => {
  it('maps instructions, images, calls, outputs and options', () => {
    const chat = responsesToChat(parse({
      instructions: 'sys',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'hi' }, { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'low' }] },
        { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
        { type: 'function_call', call_id: 'c2', name: 'g', arguments: '{"a":1}' },
        { type: 'function_call_output', call_id: 'c1', output: 'one' },
        { type: 'reasoning', id: 'rs_1', summary: [] },
      ],
      tools: [{ type: 'function', name: 'f', parameters: { type: 'object' }, strict: true }],
      tool_choice: { type: 'function', name: 'f' },
      text: { format: { type: 'json_schema', name: 'x', schema: { type: 'object' }, strict: true } },
      reasoning: { effort: 'high', summary: 'auto' },
      max_output_tokens: 64,
      temperature: 0,
      top_p: 0.5,
      stream: true,
    }));
    expect(chat).toEqual({
      model: 'local/echo',
      stream: true,
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'low' } }] },
        { role: 'assistant', content: null, tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } },
          { id: 'c2', type: 'function', function: { name: 'g', arguments: '{"a":1}' } },
        ] },
        { role: 'tool', tool_call_id: 'c1', content: 'one' },
      ],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      tool_choice: { type: 'function', function: { name: 'f' } },
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' }, strict: true } },
      reasoning_effort: 'high',
      max_tokens: 64,
      temperature: 0,
      top_p: 0.5,
    });
  });

  it('keeps temperature 0 and maps a string input to one user message', () => {
    expect(responsesToChat(parse({ input: 'x', temperature: 0 }))).toEqual({ model: 'local/echo', stream: false, messages: [{ role: 'user', content: 'x' }], temperature: 0 });
  });

  it.each([
    [{ previous_response_id: 'resp_1' }, 'previous_response_id'],
    [{ store: true }, 'store'],
    [{ input: [{ type: 'item_reference', id: 'x' }] }, 'input.0'],
  ])('refuses state %j', (extra, param) => {
    let thrown: unknown;
    try {
      responsesToChat(parse({ input: 'x', ...extra }));
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(GatewayError);
    expect((thrown as GatewayError).param).toBe(param);
    expect((thrown as GatewayError).message).toContain('stateless');
  });

  it('accepts store: false', () => {
    expect(() => responsesToChat(parse({ input: 'x', store: false }))).not.toThrow();
  });
});

describe('chat completion → response object', () => {
  it('orders reasoning, message and calls, and renames usage keeping cost', () => {
    const shell = { ids: responseIds('req_abc'), createdAt: 1, model: 'local/echo', request: parse({ input: 'x' }), callName: (name: string) => ({ name }) };
    const out = completionToResponse(shell, {
      choices: [{ index: 0, message: { content: 'hi', reasoning: 'why', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] }, finish_reason: 'length' }],
      usage,
    });
    expect(out.id).toBe('resp_abc');
    expect(out.status).toBe('incomplete');
    expect(out.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect((out.output as Array<{ type: string }>).map((i) => i.type)).toEqual(['reasoning', 'message', 'function_call']);
    expect(out.usage).toEqual({ input_tokens: 10, input_tokens_details: { cached_tokens: 4, cache_write_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 2 }, total_tokens: 15, cost: 0.00002, cost_details: [] });
  });
});

describe('chat stream → Responses events', () => {
  const run = (chunks: unknown[]) => {
    const t = new ResponsesStreamTranslator({ ids: responseIds('req_s'), createdAt: 1, model: 'm', request: parse({ input: 'x' }), callName: (name: string) => ({ name }) });
    const events = [...t.start(), ...chunks.flatMap((c) => readChatChunk(c).flatMap((p) => t.part(p))), ...t.end()];
    return events;
  };
  const delta = (d: Record<string, unknown>, finish: string | null = null) => ({ choices: [{ index: 0, delta: d, finish_reason: finish }] });

  it('opens and closes each item around its deltas, tool arguments included', () => {
    const events = run([
      delta({ role: 'assistant', reasoning: 'r' }),
      delta({ content: 'a' }),
      delta({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"x"' } }] }),
      delta({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }, 'tool_calls'),
      { choices: [], usage },
    ]);
    expect(events.map((e) => e.type)).toEqual([
      'response.created', 'response.in_progress',
      'response.output_item.added', 'response.reasoning_summary_part.added', 'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done', 'response.reasoning_summary_part.done', 'response.output_item.done',
      'response.output_item.added', 'response.content_part.added', 'response.output_text.delta',
      'response.output_text.done', 'response.content_part.done', 'response.output_item.done',
      'response.output_item.added', 'response.function_call_arguments.delta', 'response.function_call_arguments.delta',
      'response.function_call_arguments.done', 'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const done = events.find((e) => e.type === 'response.function_call_arguments.done');
    expect(done).toMatchObject({ name: 'f', arguments: '{"x":1}', output_index: 2 });
    const completed = events.at(-1) as unknown as { response: { usage: { cost: number }; output: unknown[] } };
    expect(completed.response.usage.cost).toBe(0.00002);
    expect(completed.response.output).toHaveLength(3);
  });

  it('ends in response.failed carrying the error and the usage', () => {
    const events = run([delta({ content: 'a' }), { error: { message: 'boom', type: 'upstream_error', code: 'upstream_error', param: null }, choices: [{ index: 0, delta: {}, finish_reason: 'error' }] }, { choices: [], usage }]);
    expect(events.at(-1)).toMatchObject({ type: 'response.failed', response: { status: 'failed', error: { code: 'server_error', message: 'boom (upstream_error)' }, usage: { cost: 0.00002 } } });
  });
});

describe('what coding agents send on the Responses API', () => {
  const namespace = {
    type: 'namespace',
    name: 'crm',
    description: 'CRM tools',
    tools: [
      { type: 'function', name: 'lookup', parameters: { type: 'object' } },
      { type: 'custom', name: 'patch', format: { type: 'grammar', syntax: 'lark', definition: 'start: "x"' } },
    ],
  };

  it('maps namespace functions to joined names, leaves hosted and custom tools out, and maps calls back', () => {
    const tools = translateTools(parse({ input: 'x', tools: [{ type: 'function', name: 'shell', parameters: { type: 'object' } }, namespace, { type: 'web_search' }] }));
    expect(tools.functions.map((f) => (f.function as { name: string }).name)).toEqual(['shell', 'crm__lookup']);
    expect(tools.omitted).toEqual(['custom', 'web_search']);
    expect(tools.callName('crm__lookup')).toEqual({ name: 'lookup', namespace: 'crm' });
    expect(tools.callName('shell')).toEqual({ name: 'shell' });
  });

  it('takes the tools of additional_tools items too', () => {
    const tools = translateTools(parse({ input: [{ type: 'additional_tools', role: 'developer', tools: [namespace] }, { role: 'user', content: 'hi' }] }));
    expect(tools.functions.map((f) => (f.function as { name: string }).name)).toEqual(['crm__lookup']);
    expect(tools.omitted).toEqual(['custom']);
  });

  it('replays namespaced and custom calls from the history, and skips hosted items', () => {
    const chat = responsesToChat(parse({
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'be brief' }] },
        { type: 'function_call', call_id: 'c1', name: 'lookup', namespace: 'crm', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'found' },
        { type: 'custom_tool_call', call_id: 'c2', name: 'patch', input: '*** Begin Patch' },
        { type: 'custom_tool_call_output', call_id: 'c2', output: 'done' },
        { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'q' } },
      ],
      tools: [namespace],
    }));
    expect(chat.messages).toEqual([
      { role: 'developer', content: 'be brief' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'crm__lookup', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'found' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c2', type: 'function', function: { name: 'patch', arguments: '{"input":"*** Begin Patch"}' } }] },
      { role: 'tool', tool_call_id: 'c2', content: 'done' },
    ]);
  });

  it('accepts newer effort levels and hosted tool choices, and names what a translation cannot carry', () => {
    const request = parse({ input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file_1' }] }], reasoning: { effort: 'ultra' }, tool_choice: { type: 'web_search' }, tools: [{ type: 'web_search' }] });
    expect(responsesToChat(request).reasoning_effort).toBe('medium');
    expect(untranslatablePart(request)).toBe('input.0.content.0');
    expect(forcedHostedTool(request)).toBe('web_search');
    expect(forcedHostedTool(parse({ input: 'x', tool_choice: { type: 'function', name: 'f' } }))).toBeUndefined();
  });
});
