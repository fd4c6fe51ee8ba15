import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countMessageTokens, countTokens } from '../../../src/billing/tokenizer.js';
import { call } from '../../helpers/admin-client.js';
import { startTestGateway, testEnv, TEST_ADMIN_TOKEN, type TestGateway } from '../../helpers/test-gateway.js';
import { waitFor } from '../../helpers/wait-for.js';
import { balanceOf, chat, fundedKey, ledgerEntry, streamChat, streamedText, type FundedKey } from './chat-client.js';

// local/echo: $0.000001 per prompt token, $0.000002 per completion token.
const costUsd = (prompt: number, completion: number): number => Number(((prompt * 1000 + completion * 2000) / 1e9).toFixed(9));
const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

let gw: TestGateway;
let key: FundedKey;

beforeAll(async () => {
  gw = await startTestGateway({ env: testEnv({ LOG_LEVEL: 'warn' }) });
  key = await fundedKey(gw.url, 10, { limits: { rpm: 1000 } });
});
afterAll(async () => gw?.close());

describe('non-streamed chat', () => {
  it('answers in the OpenAI shape with the catalog id and an exact, durable cost', async () => {
    const before = await balanceOf(gw.url, key.accountId);
    const messages = [{ role: 'user', content: 'hello gateway' }];
    const res = await chat(gw.url, key.raw, { model: 'local/echo', messages });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-service-request-id') ?? '';
    expect(res.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(res.body).toMatchObject({ object: 'chat.completion', model: 'local/echo', choices: [{ index: 0, message: { role: 'assistant', content: 'Echo: hello gateway' }, finish_reason: 'stop' }] });
    expect(res.body.id).toBe(`chatcmpl-${requestId.replace(/^req_/, '')}`);
    const usage = res.body.usage;
    expect(usage.prompt_tokens).toBe(countMessageTokens([{ role: 'user', content: 'hello gateway' }]));
    expect(usage.completion_tokens).toBe(countTokens('Echo: hello gateway'));
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    expect(usage.completion_tokens_details).toEqual({ reasoning_tokens: 0 });
    expect(usage.cost).toBe(costUsd(usage.prompt_tokens, usage.completion_tokens));
    const entry = await ledgerEntry(gw.url, key.accountId, requestId);
    expect(entry).toMatchObject({ kind: 'charge', model: 'local/echo', cost_usd: usage.cost, charged_usd: usage.cost });
    expect(await balanceOf(gw.url, key.accountId)).toBeCloseTo(before - usage.cost, 9);
  });

  it('makes tool calls, and answers from a tool result on the next turn', async () => {
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
    const first = await chat(gw.url, key.raw, { model: 'local/echo', messages: [{ role: 'user', content: 'Use get_weather: weather in Oslo?' }], tools });
    expect(first.status).toBe(200);
    const choice = first.body.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    const toolCall = choice.message.tool_calls[0];
    expect(toolCall.function.name).toBe('get_weather');
    expect(typeof JSON.parse(toolCall.function.arguments).city).toBe('string');
    const second = await chat(gw.url, key.raw, {
      model: 'local/echo',
      tools,
      messages: [
        { role: 'user', content: 'Use get_weather: weather in Oslo?' },
        { role: 'assistant', content: null, tool_calls: [toolCall] },
        { role: 'tool', tool_call_id: toolCall.id, content: 'sunny, 21C' },
      ],
    });
    expect(second.body.choices[0].message.content).toBe('Tool result: sunny, 21C');
  });

  it('returns reasoning when asked, and strips it with reasoning.exclude', async () => {
    const shown = await chat(gw.url, key.raw, { model: 'local/echo', messages: [{ role: 'user', content: 'think' }], reasoning: { effort: 'low' } });
    expect(shown.body.choices[0].message.reasoning).toMatch(/The user wrote/);
    expect(shown.body.usage.completion_tokens_details.reasoning_tokens).toBeGreaterThan(0);
    const hidden = await chat(gw.url, key.raw, { model: 'local/echo', messages: [{ role: 'user', content: 'think' }], reasoning: { effort: 'low', exclude: true } });
    expect(hidden.status).toBe(200);
    expect(hidden.body.choices[0].message).not.toHaveProperty('reasoning');
  });

  it('accepts a vision data URL', async () => {
    const res = await chat(gw.url, key.raw, {
      model: 'local/echo',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_1X1}` } }] }],
    });
    expect(res.status).toBe(200);
    expect(res.body.choices[0].message.content).toContain('[1 image received]');
  });
});

describe('streamed chat', () => {
  it('relays deltas, ends with a usage chunk carrying the cost, then [DONE]', async () => {
    const result = await streamChat(gw.url, key.raw, { model: 'local/echo', messages: [{ role: 'user', content: 'stream me [[local:chunks=4]]' }] });
    expect(result.status).toBe(200);
    expect(result.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(result.headers.get('cache-control')).toBe('no-cache');
    expect(result.headers.get('x-ratelimit-limit')).toBe('1000');
    const requestId = result.headers.get('x-service-request-id') ?? '';
    expect(result.done).toBe(true);
    expect(streamedText(result)).toBe('Echo: stream me');
    const deltas = result.events.slice(0, -1);
    expect(deltas.length).toBeGreaterThanOrEqual(4);
    for (const e of deltas) expect(e).toMatchObject({ object: 'chat.completion.chunk', model: 'local/echo', id: `chatcmpl-${requestId.slice(4)}` });
    const last = result.events.at(-1) ?? {};
    expect(last.choices).toEqual([]);
    expect(last.usage.cost).toBe(costUsd(last.usage.prompt_tokens, last.usage.completion_tokens));
    const entry = await ledgerEntry(gw.url, key.accountId, requestId);
    expect(entry?.cost_usd).toBe(last.usage.cost);
  });

  it('streams tool call deltas', async () => {
    const result = await streamChat(gw.url, key.raw, {
      model: 'local/echo',
      messages: [{ role: 'user', content: 'call lookup' }],
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } } }],
    });
    const calls = result.events.flatMap((e) => e.choices?.[0]?.delta?.tool_calls ?? []);
    expect(calls[0]?.function?.name).toBe('lookup');
    const args = calls.map((c: { function?: { arguments?: string } }) => c.function?.arguments ?? '').join('');
    expect(JSON.parse(args)).toHaveProperty('q');
    expect(result.events.some((e) => e.choices?.[0]?.finish_reason === 'tool_calls')).toBe(true);
    expect(result.done).toBe(true);
  });

  it('keeps delta.reasoning out of the stream with reasoning.exclude', async () => {
    const shown = await streamChat(gw.url, key.raw, { model: 'local/echo', messages: [{ role: 'user', content: 'hm' }], reasoning: { enabled: true } });
    expect(shown.events.some((e) => typeof e.choices?.[0]?.delta?.reasoning === 'string')).toBe(true);
    const hidden = await streamChat(gw.url, key.raw, { model: 'local/echo', messages: [{ role: 'user', content: 'hm' }], reasoning: { enabled: true, exclude: true } });
    expect(hidden.text).not.toContain('"reasoning"');
    expect(streamedText(hidden)).toBe('Echo: hm');
  });

  it('reports a mid-stream failure as an error chunk, then usage for what was produced, then [DONE]', async () => {
    const result = await streamChat(gw.url, key.raw, { model: 'local/echo', messages: [{ role: 'user', content: 'one two three four five [[local:chunks=5]] [[local:fail-after=2]]' }] });
    expect(result.status).toBe(200);
    expect(result.done).toBe(true);
    const errorAt = result.events.findIndex((e) => e.error !== undefined);
    expect(errorAt).toBe(result.events.length - 2);
    expect(result.events[errorAt]).toMatchObject({ error: { code: 'upstream_error', type: 'upstream_error' }, choices: [{ index: 0, delta: {}, finish_reason: 'error' }] });
    const usage = result.events.at(-1)?.usage;
    const produced = streamedText(result);
    expect(usage.completion_tokens).toBe(countTokens(produced));
    const entry = await ledgerEntry(gw.url, key.accountId, result.headers.get('x-service-request-id') ?? '');
    expect(entry?.cost_usd).toBe(usage.cost);
  });

  it('bills a client that leaves mid-stream by the usage the upstream reports after it left, and frees its stream slot', async () => {
    const one = await fundedKey(gw.url, 1, { limits: { concurrent_streams: 1 } });
    const cut = await streamChat(gw.url, one.raw, { model: 'local/echo', messages: [{ role: 'user', content: 'a b c d e f g h [[local:chunks=8]] [[local:slow=150]]' }] }, { abortAfter: 2 });
    const requestId = cut.headers.get('x-service-request-id') ?? '';
    let entry: Record<string, any> | undefined;
    for (let i = 0; i < 100 && entry === undefined; i += 1) {
      entry = await ledgerEntry(gw.url, one.accountId, requestId);
      if (entry === undefined) await new Promise((r) => setTimeout(r, 50));
    }
    expect(entry?.cost_usd).toBeGreaterThan(0);
    expect(entry?.units.prompt).toBe(countMessageTokens([{ role: 'user', content: 'a b c d e f g h [[local:chunks=8]] [[local:slow=150]]' }]));
    // The upstream ran on for its usage report (within the usage grace): the whole answer.
    expect(entry?.units.completion).toBeGreaterThanOrEqual(countTokens('Echo: a b c d e f g h'));
    // The slot is freed right after the charge is durable, so the next stream may race it briefly.
    const next = await waitFor('the stream slot to be freed', async () => {
      const res = await streamChat(gw.url, one.raw, { model: 'local/echo', messages: [{ role: 'user', content: 'again' }] });
      return res.status === 200 ? res : undefined;
    }, { timeoutMs: 5_000 });
    expect(next.done).toBe(true);
  });
});

describe('chat errors', () => {
  it.each([
    ['local/canvas-image', '/v1/images/generations'],
    ['local/reader', '/v1/ocr'],
  ])('sends %s to the right endpoint with wrong_endpoint', async (model, endpoint) => {
    const res = await chat(gw.url, key.raw, { model, messages: [{ role: 'user', content: 'x' }] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'wrong_endpoint', type: 'invalid_request_error', param: 'model' });
    expect(res.body.error.message).toContain(endpoint);
  });

  it('answers 404 model_not_found for an unknown model', async () => {
    const res = await chat(gw.url, key.raw, { model: 'nobody/nothing', messages: [{ role: 'user', content: 'x' }] });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'model_not_found', param: 'model' });
  });

  it.each([
    [{ model: 'local/echo' }, 'messages'],
    [{ model: 'local/echo', messages: 'hi' }, 'messages'],
    [{ model: 'local/echo', messages: [{ role: 'robot', content: 'x' }] }, 'messages.0.role'],
    [{ model: 'local/echo', messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function', function: { name: 'bad name!' } }] }, 'tools.0.function.name'],
    [{ model: 'local/echo', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,%%%' } }] }] }, 'messages.0.content.0.image_url.url'],
    [{ model: 'local/echo', messages: [{ role: 'user', content: 'x' }], n: 50 }, 'n'],
    [{ model: 'local/echo', messages: [{ role: 'user', content: 'x' }], max_tokens: -1 }, 'max_tokens'],
  ])('rejects bad input %# with 400 naming the field', async (body, param) => {
    const res = await chat(gw.url, key.raw, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', type: 'invalid_request_error', param });
  });

  it('rejects malformed JSON with 400', async () => {
    const res = await call(gw.url, 'POST', '/v1/chat/completions', { token: key.raw, rawBody: '{"model": "local/echo", ' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
  });

  it('refuses management keys with 403 model_not_allowed and missing keys with 401', async () => {
    const mgmt = await fundedKey(gw.url, 1, { role: 'management' });
    const res = await chat(gw.url, mgmt.raw, { model: 'local/echo', messages: [{ role: 'user', content: 'x' }] });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('model_not_allowed');
    const anon = await call(gw.url, 'POST', '/v1/chat/completions', { body: { model: 'local/echo', messages: [] } });
    expect(anon.status).toBe(401);
  });

  it('answers 402 before calling the model when the balance is empty', async () => {
    const broke = await fundedKey(gw.url, '0.000000001');
    await chat(gw.url, broke.raw, { model: 'local/echo', messages: [{ role: 'user', content: 'spend it all' }] });
    const res = await chat(gw.url, broke.raw, { model: 'local/echo', messages: [{ role: 'user', content: 'again' }] });
    expect(res.status).toBe(402);
    expect(res.body.error.code).toBe('insufficient_credits');
  });
});

describe('GET /metrics', () => {
  it('needs the operator token and counts chat requests, streams and charges', async () => {
    expect((await fetch(`${gw.url}/metrics`)).status).toBe(401);
    const res = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toMatch(/farebox_http_requests_total\{method="POST",route="\/v1\/chat\/completions",status="200"\} \d+/);
    expect(text).toMatch(/farebox_http_requests_total\{method="POST",route="\/v1\/chat\/completions",status="400"\} \d+/);
    expect(text).toMatch(/farebox_ledger_charges_total\{source="chat"\} [1-9]/);
    expect(text).toMatch(/farebox_upstream_latency_seconds_count\{provider="local",phase="first_event",outcome="ok"\} [1-9]/);
    expect(text).toContain('farebox_open_streams 0');
  });
});
