import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/platform/errors/gateway-error.js';
import type { ChatCall, ChatRequestBody, ChatStreamEvent } from '../../../../src/providers/chat/chat-types.js';
import { createAnthropicChat } from '../../../../src/providers/anthropic/anthropic-chat.js';
import { loadRecorded } from '../../../fixtures/recorded/recorded-fixtures.js';
import { bytes, memoryUpstream, randomSplits, splitAt, type CannedResponse } from '../../../fixtures/chat/memory-upstream.js';
import {
  ANTHROPIC_ERROR_EVENTS,
  ANTHROPIC_MESSAGE,
  ANTHROPIC_TEXT_EVENTS,
  ANTHROPIC_TOOL_EVENTS,
  anthropicErrorBody,
  toAnthropicSse,
} from '../../../fixtures/chat/anthropic-fixtures.js';

const BODY: ChatRequestBody = { model: 'anthropic/claude', messages: [{ role: 'user', content: 'Hi' }] };
const call = (body: ChatRequestBody = BODY): ChatCall => ({ upstreamModel: 'claude-sonnet-4-5', body, signal: new AbortController().signal });

function chatWith(respond: () => CannedResponse) {
  const upstream = memoryUpstream(respond);
  return { chat: createAnthropicChat({ baseUrl: 'https://api.anthropic.example', apiKey: 'sk-ant-test', client: upstream.client }), requests: upstream.requests };
}

async function collect(stream: AsyncIterable<ChatStreamEvent>, into: ChatStreamEvent[] = []): Promise<ChatStreamEvent[]> {
  for await (const event of stream) into.push(event);
  return into;
}

async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  const err: unknown = await promise.then(() => undefined, (e: unknown) => e);
  if (!(err instanceof GatewayError)) throw new Error(`expected GatewayError, got ${String(err)}`);
  return err;
}

const deltas = (events: ChatStreamEvent[]) => events.flatMap((e) => (e.kind === 'delta' ? e.choices : []));
const joined = (events: ChatStreamEvent[], field: 'content' | 'reasoning') => deltas(events).map((c) => c.delta[field] ?? '').join('');

describe('anthropic chat.complete', () => {
  it('posts to /v1/messages with x-api-key and anthropic-version and maps the message', async () => {
    const { chat, requests } = chatWith(() => ({ chunks: [bytes(JSON.stringify(ANTHROPIC_MESSAGE))] }));
    const result = await chat.complete(call());
    expect(requests[0]?.url).toBe('https://api.anthropic.example/v1/messages');
    expect(requests[0]?.headers['x-api-key']).toBe('sk-ant-test');
    expect(requests[0]?.headers['anthropic-version']).toBe('2023-06-01');
    expect(requests[0]?.headers).not.toHaveProperty('authorization');
    expect(result.choices).toEqual([{
      index: 0,
      finish_reason: 'tool_calls',
      message: {
        role: 'assistant',
        content: 'Checking.',
        reasoning: 'The user wants weather.',
        tool_calls: [{ id: 'toolu_01A09q90qw90lq917835lq9', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } }],
      },
    }]);
    expect(result.usage!.promptTokens).toBe(150);
    expect(result.usage!.completionTokens).toBe(50);
    expect(result.usage!.reasoningTokens).toBeGreaterThan(0);
    expect(result.usage!.reasoningTokens).toBeLessThanOrEqual(50);
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['tool_use', 'tool_calls'],
  ])('maps stop_reason %s to %s', async (stop, finish) => {
    const { chat } = chatWith(() => ({ chunks: [bytes(JSON.stringify({ ...ANTHROPIC_MESSAGE, stop_reason: stop }))] }));
    expect((await chat.complete(call())).choices[0]?.finish_reason).toBe(finish);
  });

  it('passes reasoning on under exclude (the chat core strips it after counting it)', async () => {
    const { chat } = chatWith(() => ({ chunks: [bytes(JSON.stringify(ANTHROPIC_MESSAGE))] }));
    const shown = await chat.complete(call());
    const result = await chat.complete(call({ ...BODY, reasoning: { exclude: true } }));
    expect(shown.choices[0]?.message.reasoning).toBeTruthy();
    expect(result.choices[0]?.message.reasoning).toBe(shown.choices[0]?.message.reasoning);
  });

  it('maps Anthropic error bodies: 429 keeps Retry-After, 529 overloaded is a 502, 400 keeps the message', async () => {
    const limited = await failure(chatWith(() => ({ status: 429, headers: { 'retry-after': '30' }, chunks: [bytes(anthropicErrorBody('rate_limit_error', 'Too many'))] })).chat.complete(call()));
    expect([limited.code, limited.retryAfterSeconds]).toEqual(['rate_limited', 30]);
    const overloaded = await failure(chatWith(() => ({ status: 529, chunks: [bytes(anthropicErrorBody('overloaded_error', 'Overloaded'))] })).chat.complete(call()));
    expect([overloaded.code, overloaded.status]).toEqual(['upstream_error', 502]);
    expect(overloaded.message).toContain('Overloaded');
    const invalid = await failure(chatWith(() => ({ status: 400, chunks: [bytes(anthropicErrorBody('invalid_request_error', 'max_tokens: too large'))] })).chat.complete(call()));
    expect([invalid.code, invalid.message.includes('max_tokens: too large')]).toEqual(['invalid_request', true]);
    const auth = await failure(chatWith(() => ({ status: 401, chunks: [bytes(anthropicErrorBody('authentication_error', 'invalid x-api-key'))] })).chat.complete(call()));
    expect(auth.code).toBe('upstream_error');
    const garbage = await failure(chatWith(() => ({ chunks: [bytes('not json')] })).chat.complete(call()));
    expect(garbage.code).toBe('upstream_error');
  });
});

describe('anthropic chat.stream', () => {
  const streamOf = (chunks: Uint8Array[], body: ChatRequestBody = BODY) => collect(chatWith(() => ({ chunks })).chat.stream(call(body)));

  it('maps text events identically at every split point', async () => {
    const sse = bytes(toAnthropicSse(ANTHROPIC_TEXT_EVENTS));
    const whole = await streamOf([sse]);
    expect(whole[0]).toEqual({ kind: 'delta', choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
    expect(joined(whole, 'content')).toBe('Hello, wörld 🌍!');
    expect(deltas(whole).at(-1)?.finish_reason).toBe('stop');
    expect(whole.at(-1)).toMatchObject({ kind: 'usage', usage: { promptTokens: 30, completionTokens: 15, reasoningTokens: 0 } });
    expect(whole.at(-1)).not.toHaveProperty('partial');
    for (let point = 1; point < sse.length; point++) expect(await streamOf(splitAt(sse, [point]))).toEqual(whole);
  });

  it('maps thinking, text and tool_use blocks across random splits', async () => {
    const sse = bytes(toAnthropicSse(ANTHROPIC_TOOL_EVENTS));
    const whole = await streamOf([sse]);
    for (let seed = 1; seed <= 50; seed++) expect(await streamOf(splitAt(sse, randomSplits(sse.length, 15, seed)))).toEqual(whole);
    expect(joined(whole, 'reasoning')).toBe('I should check the weather.');
    expect(joined(whole, 'content')).toBe('Let me look.');
    const calls = deltas(whole).flatMap((c) => c.delta.tool_calls ?? []);
    expect(calls[0]).toEqual({ index: 0, id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', type: 'function', function: { name: 'get_weather', arguments: '' } });
    expect(JSON.parse(calls.map((c) => c.function?.arguments ?? '').join(''))).toEqual({ location: 'San Francisco, CA' });
    expect(deltas(whole).at(-1)?.finish_reason).toBe('tool_calls');
    const usage = whole.at(-1);
    expect(usage?.kind === 'usage' && usage.usage.completionTokens).toBe(89);
  });

  it('maps a recorded web-search stream: server tool input is not a client tool call; searches are counted', async () => {
    const recorded = loadRecorded('anthropic', 'messages-stream-web-search');
    expect(recorded.text).toContain('"type":"server_tool_use"');
    const events = await streamOf([bytes(recorded.text)]);
    expect(deltas(events).flatMap((c) => c.delta.tool_calls ?? [])).toEqual([]);
    expect(joined(events, 'content').length).toBeGreaterThan(0);
    const usage = events.at(-1);
    expect(usage?.kind === 'usage' ? usage.usage : undefined).toMatchObject({ promptTokens: 22397, completionTokens: 637, webSearches: 2 });
  });

  it('passes thinking deltas on under exclude (the chat core strips them after counting them)', async () => {
    const events = await streamOf([bytes(toAnthropicSse(ANTHROPIC_TOOL_EVENTS))], { ...BODY, reasoning: { exclude: true } });
    expect(joined(events, 'reasoning')).toBe('I should check the weather.');
    expect(joined(events, 'content')).toBe('Let me look.');
  });

  it('raises an error event mid-stream after the deltas before it', async () => {
    const seen: ChatStreamEvent[] = [];
    const err = await failure(collect(chatWith(() => ({ chunks: [bytes(toAnthropicSse(ANTHROPIC_ERROR_EVENTS))] })).chat.stream(call()), seen));
    expect(err.code).toBe('upstream_error');
    expect(err.message).toContain('overloaded_error');
    expect(joined(seen, 'content')).toBe('Hel');
    // Only the input count from message_start came: no final usage.
    expect(seen.filter((e) => e.kind === 'usage').every((e) => e.kind === 'usage' && e.partial === true)).toBe(true);
  });

  it('maps a rate_limit_error event to rate_limited', async () => {
    const events = [...ANTHROPIC_ERROR_EVENTS.slice(0, -1), { type: 'error', error: { type: 'rate_limit_error', message: 'slow' } }];
    const err = await failure(streamOf([bytes(toAnthropicSse(events))]));
    expect(err.code).toBe('rate_limited');
  });

  it('skips a malformed event among valid ones and goes on', async () => {
    const sse = `${toAnthropicSse(ANTHROPIC_TEXT_EVENTS.slice(0, 3))}event: x\ndata: {oops\n\n${toAnthropicSse(ANTHROPIC_TEXT_EVENTS.slice(3))}`;
    const events = await streamOf([bytes(sse)]);
    const whole = await streamOf([bytes(toAnthropicSse(ANTHROPIC_TEXT_EVENTS))]);
    expect(events.filter((e) => e.kind === 'skipped')).toHaveLength(1);
    expect(events.filter((e) => e.kind !== 'skipped')).toEqual(whole);
  });

  it('fails on a stream cut before message_stop, broken SSE or invalid JSON', async () => {
    const partial = toAnthropicSse(ANTHROPIC_TEXT_EVENTS.slice(0, -1));
    for (const sse of [partial, `${partial.slice(0, -30)}`, `${toAnthropicSse(ANTHROPIC_TEXT_EVENTS.slice(0, 3))}event: x\ndata: {oops\n\n`]) {
      expect((await failure(streamOf([bytes(sse)]))).code).toBe('upstream_error');
    }
  });
});
