import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/platform/errors/gateway-error.js';
import { countTokens } from '../../../../src/billing/tokenizer.js';
import type { ChatCall, ChatRequestBody, ChatStreamEvent } from '../../../../src/providers/chat/chat-types.js';
import { createLocalChat } from '../../../../src/providers/local/local-chat.js';

const chat = createLocalChat();
const call = (body: Partial<ChatRequestBody>, signal = new AbortController().signal): ChatCall => ({
  upstreamModel: 'echo',
  body: { model: 'local/echo', messages: [{ role: 'user', content: 'Hello world' }], ...body },
  signal,
});

async function collect(stream: AsyncIterable<ChatStreamEvent>, into: ChatStreamEvent[] = []): Promise<ChatStreamEvent[]> {
  for await (const event of stream) into.push(event);
  return into;
}
const deltas = (events: ChatStreamEvent[]) => events.flatMap((e) => (e.kind === 'delta' ? e.choices : []));
const joined = (events: ChatStreamEvent[], field: 'content' | 'reasoning') => deltas(events).map((c) => c.delta[field] ?? '').join('');

async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  const err: unknown = await promise.then(() => undefined, (e: unknown) => e);
  if (!(err instanceof GatewayError)) throw new Error(`expected GatewayError, got ${String(err)}`);
  return err;
}

const WEATHER_TOOL = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 7 }, unit: { type: 'string', enum: ['c', 'f'] }, detailed: { type: 'boolean' } },
      required: ['city', 'days', 'unit'],
    },
  },
};

describe('local echo chat', () => {
  it('echoes the last user message deterministically with tokenizer usage', async () => {
    const a = await chat.complete(call({ messages: [{ role: 'user', content: 'first' }, { role: 'assistant', content: 'x' }, { role: 'user', content: 'Hello world' }] }));
    const b = await chat.complete(call({ messages: [{ role: 'user', content: 'first' }, { role: 'assistant', content: 'x' }, { role: 'user', content: 'Hello world' }] }));
    expect(a).toEqual(b);
    expect(a.choices[0]?.message.content).toBe('Echo: Hello world');
    expect(a.choices[0]?.finish_reason).toBe('stop');
    expect(a.usage!.completionTokens).toBe(countTokens('Echo: Hello world'));
    expect(a.usage!.promptTokens).toBeGreaterThan(countTokens('firstxHello world'));
  });

  it('streams the same answer in several deltas, finish then usage last', async () => {
    const events = await collect(chat.stream(call({ stream: true })));
    expect(deltas(events)[0]?.delta.role).toBe('assistant');
    expect(joined(events, 'content')).toBe('Echo: Hello world');
    expect(deltas(events).filter((c) => (c.delta.content ?? '') !== '').length).toBeGreaterThan(2);
    expect(deltas(events).at(-1)?.finish_reason).toBe('stop');
    const result = await chat.complete(call({}));
    expect(events.at(-1)).toEqual({ kind: 'usage', usage: result.usage });
  });

  it('honours [[local:chunks=N]] and strips directives from the echo', async () => {
    const events = await collect(chat.stream(call({ messages: [{ role: 'user', content: 'abcdefghij [[local:chunks=10]]' }] })));
    expect(joined(events, 'content')).toBe('Echo: abcdefghij');
    expect(deltas(events).filter((c) => c.delta.content !== undefined && c.delta.content !== '').length).toBe(10);
  });

  const askForTool = (text: string): Partial<ChatRequestBody> => ({ messages: [{ role: 'user', content: text }] });

  it('calls the tool the user asks for by name, with arguments satisfying its schema', async () => {
    const result = await chat.complete(call({ ...askForTool('Use get_weather for Paris'), tools: [{ type: 'function', function: { name: 'other' } }, WEATHER_TOOL] }));
    const toolCall = result.choices[0]?.message.tool_calls?.[0];
    expect(result.choices[0]?.finish_reason).toBe('tool_calls');
    expect(toolCall?.function.name).toBe('get_weather');
    const args = JSON.parse(toolCall?.function.arguments ?? '') as Record<string, unknown>;
    expect(typeof args.city).toBe('string');
    expect(Number.isInteger(args.days) && (args.days as number) >= 1 && (args.days as number) <= 7).toBe(true);
    expect(args.unit).toBe('c');
    expect(toolCall?.id).toMatch(/^call_/);
  });

  it('calls the chosen tool, and none with tool_choice "none"', async () => {
    const tools = [WEATHER_TOOL, { type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } } }];
    const chosen = await chat.complete(call({ tools, tool_choice: { type: 'function', function: { name: 'lookup' } } }));
    expect(chosen.choices[0]?.message.tool_calls?.[0]?.function.name).toBe('lookup');
    const none = await chat.complete(call({ tools, tool_choice: 'none' }));
    expect(none.choices[0]?.message.tool_calls).toBeUndefined();
    expect(none.choices[0]?.message.content).toBe('Echo: Hello world');
  });

  it('answers in text when no tool is asked for, and after a tool result', async () => {
    const plain = await chat.complete(call({ tools: [WEATHER_TOOL] }));
    expect(plain.choices[0]?.finish_reason).toBe('stop');
    expect(plain.choices[0]?.message.tool_calls).toBeUndefined();
    const afterResult = await chat.complete(
      call({
        messages: [
          { role: 'user', content: '[[local:tool]] weather' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
        ],
        tools: [WEATHER_TOOL],
      }),
    );
    expect(afterResult.choices[0]?.message.content).toBe('Tool result: sunny');
  });

  it('calls a tool named by a directive, or the first one offered', async () => {
    const named = await chat.complete(call({ ...askForTool('[[local:tool=other]] now'), tools: [WEATHER_TOOL, { type: 'function', function: { name: 'other' } }] }));
    expect(named.choices[0]?.message.tool_calls?.[0]?.function.name).toBe('other');
    const first = await chat.complete(call({ ...askForTool('[[local:tool]] now'), tools: [WEATHER_TOOL, { type: 'function', function: { name: 'other' } }] }));
    expect(first.choices[0]?.message.tool_calls?.[0]?.function.name).toBe('get_weather');
    expect(first.choices[0]?.message.tool_calls?.[0]?.function.arguments).not.toContain('[[local');
  });

  it('streams tool calls as id/name then argument fragments', async () => {
    const events = await collect(chat.stream(call({ ...askForTool('call get_weather'), tools: [WEATHER_TOOL] })));
    const calls = deltas(events).flatMap((c) => c.delta.tool_calls ?? []);
    expect(calls[0]).toMatchObject({ index: 0, type: 'function', function: { name: 'get_weather', arguments: '' } });
    const args = calls.map((c) => c.function?.arguments ?? '').join('');
    const complete = await chat.complete(call({ ...askForTool('call get_weather'), tools: [WEATHER_TOOL] }));
    expect(args).toBe(complete.choices[0]?.message.tool_calls?.[0]?.function.arguments);
    expect(deltas(events).at(-1)?.finish_reason).toBe('tool_calls');
  });

  it('answers a tool result in text', async () => {
    const result = await chat.complete(call({
      tools: [WEATHER_TOOL],
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny, 21C' },
      ],
    }));
    expect(result.choices[0]?.message.content).toBe('Tool result: sunny, 21C');
    expect(result.choices[0]?.finish_reason).toBe('stop');
  });

  it('answers valid JSON for json_object and json_schema', async () => {
    const object = await chat.complete(call({ response_format: { type: 'json_object' } }));
    expect(JSON.parse(object.choices[0]?.message.content ?? '')).toEqual({ echo: 'Hello world' });
    const schema = { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } }, nested: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } }, required: ['name', 'age', 'tags', 'nested'] };
    const result = await chat.complete(call({ response_format: { type: 'json_schema', json_schema: { name: 'person', schema } } }));
    const parsed = JSON.parse(result.choices[0]?.message.content ?? '') as Record<string, unknown>;
    expect(typeof parsed.name).toBe('string');
    expect(Number.isInteger(parsed.age)).toBe(true);
    expect(Array.isArray(parsed.tags)).toBe(true);
    expect(parsed.nested).toEqual({ ok: true });
  });

  it('reasons when asked, counts reasoning tokens, and hides it on exclude', async () => {
    const plain = await chat.complete(call({}));
    expect(plain.choices[0]?.message.reasoning).toBeUndefined();
    expect(plain.usage!.reasoningTokens).toBe(0);
    for (const extra of [{ reasoning: { effort: 'low' as const } }, { reasoning: { max_tokens: 100 } }, { include_reasoning: true }]) {
      const result = await chat.complete(call(extra));
      expect(result.choices[0]?.message.reasoning).toContain('Hello world');
      expect(result.usage!.reasoningTokens).toBeGreaterThan(0);
      const streamed = await collect(chat.stream(call(extra)));
      expect(joined(streamed, 'reasoning')).toBe(result.choices[0]?.message.reasoning);
    }
    const hidden = await collect(chat.stream(call({ reasoning: { exclude: true } })));
    expect(joined(hidden, 'reasoning')).toBe('');
    const usage = hidden.at(-1);
    expect(usage?.kind === 'usage' && usage.usage.reasoningTokens > 0).toBe(true);
  });

  it('acknowledges images', async () => {
    const result = await chat.complete(call({ messages: [{ role: 'user', content: [
      { type: 'text', text: 'What are these?' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,BBBB' } },
    ] }] }));
    expect(result.choices[0]?.message.content).toBe('Echo: What are these? [2 images received]');
  });

  it('truncates at max_tokens with finish_reason length', async () => {
    const result = await chat.complete(call({ messages: [{ role: 'user', content: 'one two three four five six seven eight' }], max_tokens: 3 }));
    expect(result.choices[0]?.finish_reason).toBe('length');
    expect(result.usage!.completionTokens).toBe(3);
  });

  it('produces n identical choices', async () => {
    const result = await chat.complete(call({ n: 2 }));
    expect(result.choices.map((c) => c.index)).toEqual([0, 1]);
    expect(result.usage!.completionTokens).toBe(2 * countTokens('Echo: Hello world'));
  });

  it('fails after N deltas with [[local:fail-after=N]]', async () => {
    const seen: ChatStreamEvent[] = [];
    const err = await failure(collect(chat.stream(call({ messages: [{ role: 'user', content: 'abcdefgh [[local:fail-after=2]] [[local:chunks=8]]' }] })), seen));
    expect(err.code).toBe('upstream_error');
    expect(deltas(seen).filter((c) => c.delta.content !== undefined && c.delta.content !== '').length).toBe(2);
    expect(seen.some((e) => e.kind === 'usage')).toBe(false);
    expect((await failure(chat.complete(call({ messages: [{ role: 'user', content: '[[local:fail-after=0]]' }] })))).code).toBe('upstream_error');
  });

  it('stops a slow stream when the signal aborts', async () => {
    const controller = new AbortController();
    const seen: ChatStreamEvent[] = [];
    const running = collect(chat.stream(call({ messages: [{ role: 'user', content: 'slow one [[local:slow=60000]]' }] }, controller.signal)), seen);
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    expect((await failure(running)).code).toBe('upstream_error');
    expect(seen.some((e) => e.kind === 'usage')).toBe(false);
  });

  it('rejects at once when already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new GatewayError('upstream_timeout', 'deadline'));
    expect((await failure(chat.complete(call({}, controller.signal)))).code).toBe('upstream_timeout');
  });
});
