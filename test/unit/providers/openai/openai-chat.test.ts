import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/platform/errors/gateway-error.js';
import type { ChatCall, ChatRequestBody, ChatStreamEvent } from '../../../../src/providers/chat/chat-types.js';
import { createOpenAiChat } from '../../../../src/providers/openai/openai-chat.js';
import { bytes, memoryUpstream, randomSplits, splitAt, type CannedResponse } from '../../../fixtures/chat/memory-upstream.js';
import {
  OPENAI_COMPLETION,
  OPENAI_REASONING_CHUNKS,
  OPENAI_TEXT_CHUNKS,
  OPENAI_TOOL_CHUNKS,
  OPENAI_TOOL_COMPLETION,
  openAiChunk,
  toSse,
} from '../../../fixtures/chat/openai-fixtures.js';
import { openAiSchema, schemaErrors } from '../../../helpers/openai-spec.js';

const BODY: ChatRequestBody = { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'Hi there' }] };

function call(body: ChatRequestBody = BODY): ChatCall {
  return { upstreamModel: 'gpt-4o', body, signal: new AbortController().signal };
}

function chatWith(respond: () => CannedResponse) {
  const upstream = memoryUpstream(respond);
  return { chat: createOpenAiChat({ baseUrl: 'https://api.example.test/v1/', apiKey: 'sk-test-key', client: upstream.client }), requests: upstream.requests };
}

async function collect(stream: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const out: ChatStreamEvent[] = [];
  for await (const event of stream) out.push(event);
  return out;
}

function textOf(events: ChatStreamEvent[], field: 'content' | 'reasoning'): string {
  return events.flatMap((e) => (e.kind === 'delta' ? e.choices.map((c) => c.delta[field] ?? '') : [])).join('');
}

async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  const err: unknown = await promise.then(() => undefined, (e: unknown) => e);
  if (!(err instanceof GatewayError)) throw new Error(`expected GatewayError, got ${String(err)}`);
  return err;
}

describe('fixtures follow the OpenAI spec', () => {
  it('responses validate against CreateChatCompletionResponse', () => {
    const validate = openAiSchema('CreateChatCompletionResponse');
    for (const fixture of [OPENAI_COMPLETION, OPENAI_TOOL_COMPLETION]) expect(validate(fixture), schemaErrors(validate)).toBe(true);
  });
  it('chunks validate against CreateChatCompletionStreamResponse', () => {
    const validate = openAiSchema('CreateChatCompletionStreamResponse');
    for (const chunk of [...OPENAI_TEXT_CHUNKS, ...OPENAI_TOOL_CHUNKS]) expect(validate(chunk), schemaErrors(validate)).toBe(true);
  });
});

describe('openai chat.complete', () => {
  it('posts to /chat/completions with a bearer key and maps the answer', async () => {
    const { chat, requests } = chatWith(() => ({ chunks: [bytes(JSON.stringify(OPENAI_COMPLETION))] }));
    const result = await chat.complete(call());
    expect(requests[0]?.url).toBe('https://api.example.test/v1/chat/completions');
    expect(requests[0]?.headers.authorization).toBe('Bearer sk-test-key');
    expect((requests[0]?.body as Record<string, unknown>).model).toBe('gpt-4o');
    expect(result.choices[0]?.message).toEqual({ role: 'assistant', content: 'Hello there.', refusal: null, annotations: [] });
    expect(result.choices[0]?.finish_reason).toBe('stop');
    expect(result.usage).toEqual({ promptTokens: 19, completionTokens: 10, reasoningTokens: 4 });
    expect(result.extra).toEqual({ system_fingerprint: 'fp_44709d6fcb', service_tier: 'default' });
  });

  it('maps tool calls', async () => {
    const { chat } = chatWith(() => ({ chunks: [bytes(JSON.stringify(OPENAI_TOOL_COMPLETION))] }));
    const result = await chat.complete(call());
    expect(result.choices[0]?.message.tool_calls).toEqual([
      { id: 'call_abc', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } },
    ]);
    expect(result.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('reads reasoning from reasoning_content or reasoning, and passes it on under exclude (the core strips it)', async () => {
    const withReasoning = (field: string) => ({
      ...OPENAI_COMPLETION,
      choices: [{ index: 0, message: { role: 'assistant', content: 'A', [field]: 'because' }, finish_reason: 'stop' }],
    });
    for (const field of ['reasoning', 'reasoning_content']) {
      const { chat } = chatWith(() => ({ chunks: [bytes(JSON.stringify(withReasoning(field)))] }));
      expect((await chat.complete(call())).choices[0]?.message.reasoning).toBe('because');
      const excluded = await chat.complete(call({ ...BODY, reasoning: { exclude: true } }));
      expect(excluded.choices[0]?.message.reasoning).toBe('because');
    }
  });

  it('reports no usage when the upstream reports none (the gateway then counts)', async () => {
    const { usage: _omitted, ...noUsage } = OPENAI_COMPLETION;
    const { chat } = chatWith(() => ({ chunks: [bytes(JSON.stringify(noUsage))] }));
    const result = await chat.complete(call());
    expect(result.usage).toBeUndefined();
    expect(result.choices[0]?.message.content).toBeTruthy();
  });

  it('maps 429 with Retry-After, 500 and garbage bodies to gateway errors', async () => {
    const limited = chatWith(() => ({ status: 429, headers: { 'retry-after': '20' }, chunks: [bytes('{"error":{"message":"Rate limit reached"}}')] }));
    const err = await failure(limited.chat.complete(call()));
    expect([err.code, err.retryAfterSeconds]).toEqual(['rate_limited', 20]);
    expect((await failure(chatWith(() => ({ status: 500, chunks: [bytes('oops')] })).chat.complete(call()))).code).toBe('upstream_error');
    expect((await failure(chatWith(() => ({ chunks: [bytes('<html>')] })).chat.complete(call()))).code).toBe('upstream_error');
    expect((await failure(chatWith(() => ({ chunks: [bytes('{"object":"list"}')] })).chat.complete(call()))).code).toBe('upstream_error');
  });
});

describe('openai chat.stream', () => {
  const streamOf = (chunks: Uint8Array[]) => collect(chatWith(() => ({ chunks })).chat.stream(call({ ...BODY, stream: true })));

  it('gives the same events at every split point of the byte stream', async () => {
    const sse = bytes(toSse(OPENAI_TEXT_CHUNKS));
    const whole = await streamOf([sse]);
    expect(textOf(whole, 'content')).toBe('Hello, wörld 🌍!');
    expect(whole.at(-1)).toEqual({ kind: 'usage', usage: { promptTokens: 12, completionTokens: 5, reasoningTokens: 0 } });
    expect(whole.filter((e) => e.kind === 'usage')).toHaveLength(1);
    expect(whole[0]).toEqual({ kind: 'delta', choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
    for (let point = 1; point < sse.length; point++) expect(await streamOf(splitAt(sse, [point]))).toEqual(whole);
  });

  it('reassembles tool call deltas across random splits', async () => {
    const sse = bytes(toSse(OPENAI_TOOL_CHUNKS));
    const whole = await streamOf([sse]);
    for (let seed = 1; seed <= 50; seed++) expect(await streamOf(splitAt(sse, randomSplits(sse.length, 12, seed)))).toEqual(whole);
    const calls = whole.flatMap((e) => (e.kind === 'delta' ? e.choices.flatMap((c) => c.delta.tool_calls ?? []) : []));
    expect(calls[0]).toEqual({ index: 0, id: 'call_abc', type: 'function', function: { name: 'get_weather', arguments: '' } });
    const args = (i: number) => calls.filter((c) => c.index === i).map((c) => c.function?.arguments ?? '').join('');
    expect(JSON.parse(args(0))).toEqual({ location: 'Paris' });
    expect(JSON.parse(args(1))).toEqual({ tz: 'CET' });
    const finish = whole.flatMap((e) => (e.kind === 'delta' ? e.choices.map((c) => c.finish_reason) : []));
    expect(finish.at(-1)).toBe('tool_calls');
  });

  it('maps reasoning_content deltas to delta.reasoning, also under exclude (the core strips them)', async () => {
    const sse = bytes(toSse(OPENAI_REASONING_CHUNKS));
    const events = await streamOf([sse]);
    expect(textOf(events, 'reasoning')).toBe('Thinking…');
    expect(textOf(events, 'content')).toBe('42');
    expect(events.at(-1)).toEqual({ kind: 'usage', usage: { promptTokens: 10, completionTokens: 20, reasoningTokens: 15 } });
    const { chat } = chatWith(() => ({ chunks: [sse] }));
    const excluded = await collect(chat.stream(call({ ...BODY, reasoning: { exclude: true } })));
    expect(textOf(excluded, 'reasoning')).toBe('Thinking…');
    expect(textOf(excluded, 'content')).toBe('42');
  });

  it('sends a spec-valid streaming request', async () => {
    const { chat, requests } = chatWith(() => ({ chunks: [bytes(toSse(OPENAI_TEXT_CHUNKS))] }));
    await collect(chat.stream(call({ ...BODY, stream: true, reasoning: { effort: 'low' } })));
    const validate = openAiSchema('CreateChatCompletionRequest');
    expect(validate(requests[0]?.body), schemaErrors(validate)).toBe(true);
    expect(requests[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true }, reasoning_effort: 'low' });
    expect(requests[0]?.headers.accept).toBe('text/event-stream');
  });

  it('yields no usage item when the upstream sends no usage chunk (the gateway then counts)', async () => {
    const events = await streamOf([bytes(toSse(OPENAI_TEXT_CHUNKS.slice(0, -1)))]);
    expect(events.some((e) => e.kind === 'usage')).toBe(false);
    expect(events.filter((e) => e.kind === 'delta').length).toBeGreaterThan(0);
  });

  it('fails on broken SSE, invalid JSON, early end and error chunks mid-stream', async () => {
    const start = toSse(OPENAI_TEXT_CHUNKS.slice(0, 2), false);
    const cases = [
      `${start}data: {"choices":[{"index":0,"delta":{"content":"x`,
      `${start}data: {not json}\n\n`,
      start,
      `${start}data: ${JSON.stringify({ error: { message: 'overloaded', code: 502 } })}\n\n`,
      `${start}HTTP/1.1 500 oops\n\n`,
    ];
    for (const sse of cases) {
      const seen: ChatStreamEvent[] = [];
      const err = await failure((async () => { for await (const e of chatWith(() => ({ chunks: [bytes(sse)] })).chat.stream(call())) seen.push(e); })());
      expect(err.code).toBe('upstream_error');
      expect(seen.some((e) => e.kind === 'usage')).toBe(false);
    }
  });

  it('skips a malformed event among valid ones and goes on; more than a few is a broken stream', async () => {
    const valid = OPENAI_TEXT_CHUNKS.map((c) => `data: ${JSON.stringify(c)}\n\n`);
    const once = [...valid.slice(0, 2), 'data: {not json}\n\n', ...valid.slice(2), 'data: [DONE]\n\n'].join('');
    const events = await streamOf([bytes(once)]);
    expect(events.filter((e) => e.kind === 'skipped')).toEqual([{ kind: 'skipped', reason: 'an event did not carry valid JSON' }]);
    const text = events.flatMap((e) => (e.kind === 'delta' ? e.choices.map((c) => c.delta.content ?? '') : [])).join('');
    expect(text).toBe('Hello, wörld 🌍!');
    expect(events.at(-1)?.kind).toBe('usage');
    const many = [...valid.slice(0, 2), ...Array.from({ length: 4 }, () => 'data: {not json}\n\n'), ...valid.slice(2), 'data: [DONE]\n\n'].join('');
    const err = await failure(collect(chatWith(() => ({ chunks: [bytes(many)] })).chat.stream(call())));
    expect(err.code).toBe('upstream_error');
  });

  it('passes transport failures mid-body through', async () => {
    const timeout = new GatewayError('upstream_timeout', 'stalled');
    const { chat } = chatWith(() => ({ chunks: [bytes(toSse([openAiChunk([{ index: 0, delta: { content: 'a' }, finish_reason: null }])], false))], failAfter: timeout }));
    expect(await failure(collect(chat.stream(call())))).toBe(timeout);
  });

  it('maps an error status before the stream starts', async () => {
    const { chat } = chatWith(() => ({ status: 429, headers: { 'retry-after': '3' }, chunks: [bytes('{}')] }));
    const err = await failure(collect(chat.stream(call())));
    expect([err.code, err.retryAfterSeconds]).toEqual(['rate_limited', 3]);
  });
});
