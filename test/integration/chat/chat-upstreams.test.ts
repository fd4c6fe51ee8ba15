import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic } from '../../fixtures/upstreams/fake-anthropic.js';
import { startFakeOpenAi, type FakeUpstream } from '../../fixtures/upstreams/fake-openai.js';
import { adminClient } from '../../helpers/admin-client.js';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { chat, fundedKey, ledgerEntry, streamChat, streamedText, type FundedKey } from './chat-client.js';

const OPENAI_KEY = 'sk-fake-openai-upstream-key-123456';
const ANTHROPIC_KEY = 'sk-ant-fake-upstream-key-123456';
const costUsd = (prompt: number, completion: number): number => Number(((prompt * 1000 + completion * 2000) / 1e9).toFixed(9));

let openai: FakeUpstream;
let anthropic: FakeUpstream;
let dir: string;
let gw: TestGateway;
let key: FundedKey;

/** The two vendor kinds, each behind its own catalog entry. */
const VENDORS = [
  { name: 'openai', model: 'fake/gpt', upstreamModel: 'gpt-4o-mini', reply: 'Hello from the fake upstream.', completion: 7, fake: () => openai },
  { name: 'anthropic', model: 'fake/claude', upstreamModel: 'claude-sonnet-4-20250514', reply: 'Hello from the fake Claude.', completion: 9, fake: () => anthropic },
] as const;

beforeAll(async () => {
  openai = await startFakeOpenAi({ apiKey: OPENAI_KEY });
  anthropic = await startFakeAnthropic({ apiKey: ANTHROPIC_KEY });
  dir = await mkdtemp(join(tmpdir(), 'fbx-chat-'));
  const providersFile = join(dir, 'providers.json');
  await writeFile(providersFile, JSON.stringify([
    { id: 'local', kind: 'local' },
    { id: 'fake-openai', kind: 'openai', base_url: `${openai.url}/v1`, api_key_env: 'FAKE_OPENAI_KEY' },
    { id: 'fake-anthropic', kind: 'anthropic', base_url: anthropic.url, api_key_env: 'FAKE_ANTHROPIC_KEY' },
    { id: 'fake-disabled', kind: 'openai', base_url: `${openai.url}/v1`, api_key_env: 'FAKE_UNSET_KEY' },
  ]));
  gw = await startTestGateway({
    env: testEnv({
      LOG_LEVEL: 'warn',
      PROVIDERS_FILE: providersFile,
      FAKE_OPENAI_KEY: OPENAI_KEY,
      FAKE_ANTHROPIC_KEY: ANTHROPIC_KEY,
      UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '1000',
      UPSTREAM_IDLE_TIMEOUT_MS: '1000',
      // One route per model here: answer a 429 at once instead of waiting out its Retry-After.
      ROUTE_RETRY_BUDGET_MS: '0',
    }),
  });
  const admin = adminClient(gw.url);
  const entry = (provider: string, upstream_model: string) => ({
    name: upstream_model, kind: 'chat', provider, upstream_model,
    pricing: { prompt: '0.000001', completion: '0.000002' }, capabilities: ['TOOLS', 'REASONING'], context_length: 100_000,
  });
  for (const [id, body] of [
    ['fake/gpt', entry('fake-openai', 'gpt-4o-mini')],
    ['fake/claude', entry('fake-anthropic', 'claude-sonnet-4-20250514')],
    ['fake/off', entry('fake-disabled', 'gpt-4o')],
  ] as const) {
    const res = await admin.call('PUT', `/models/${id}`, body);
    if (res.status !== 200) throw new Error(`PUT model ${res.status} ${JSON.stringify(res.body)}`);
  }
  key = await fundedKey(gw.url, 10);
});
afterAll(async () => {
  await gw?.close();
  await openai?.close();
  await anthropic?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  openai.setScenario({ type: 'normal' });
  anthropic.setScenario({ type: 'normal' });
});

const ask = (model: string, extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: 'user', content: 'Say hello' }], ...extra });
const TOOLS = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } } }];

describe.each(VENDORS)('$name upstream', (vendor) => {
  it('answers non-streamed with the catalog id, upstream usage and its exact cost', async () => {
    const res = await chat(gw.url, key.raw, ask(vendor.model, { max_tokens: 50 }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'chat.completion', model: vendor.model, choices: [{ message: { role: 'assistant', content: vendor.reply } }] });
    expect(res.body.usage.completion_tokens).toBe(vendor.completion);
    expect(res.body.usage.cost).toBe(costUsd(res.body.usage.prompt_tokens, res.body.usage.completion_tokens));
    expect((vendor.fake().requests.at(-1)?.body as { model?: string }).model).toBe(vendor.upstreamModel);
    const entry = await ledgerEntry(gw.url, key.accountId, res.headers.get('x-service-request-id') ?? '');
    expect(entry?.cost_usd).toBe(res.body.usage.cost);
  });

  it('streams deltas, a usage chunk with the cost, then [DONE]', async () => {
    const result = await streamChat(gw.url, key.raw, ask(vendor.model));
    expect(result.status).toBe(200);
    expect(streamedText(result)).toBe(vendor.reply);
    const usage = result.events.at(-1)?.usage;
    expect(result.events.at(-1)?.choices).toEqual([]);
    expect(usage.completion_tokens).toBe(vendor.completion);
    expect(usage.cost).toBe(costUsd(usage.prompt_tokens, usage.completion_tokens));
    expect(result.done).toBe(true);
  });

  it('relays tool calls, whole and streamed', async () => {
    const whole = await chat(gw.url, key.raw, ask(vendor.model, { tools: TOOLS }));
    expect(whole.body.choices[0].finish_reason).toBe('tool_calls');
    expect(whole.body.choices[0].message.tool_calls[0]).toMatchObject({ type: 'function', function: { name: 'get_weather' } });
    expect(JSON.parse(whole.body.choices[0].message.tool_calls[0].function.arguments)).toEqual({ location: 'Paris' });
    const streamed = await streamChat(gw.url, key.raw, ask(vendor.model, { tools: TOOLS }));
    const calls = streamed.events.flatMap((e) => e.choices?.[0]?.delta?.tool_calls ?? []);
    expect(calls.map((c: { function?: { arguments?: string } }) => c.function?.arguments ?? '').join('')).toBe('{"location":"Paris"}');
    expect(streamed.done).toBe(true);
  });

  it.each([
    ['429 with Retry-After', { type: 'error', status: 429, body: '{"error":{"message":"Rate limit reached","type":"requests"}}', headers: { 'retry-after': '7' } }, 429, 'rate_limited'],
    ['500', { type: 'error', status: 500, body: '{"error":{"message":"The server had an error"}}' }, 502, 'upstream_error'],
    ['garbage', { type: 'garbage' }, 502, 'upstream_error'],
    ['no answer in time', { type: 'hang' }, 504, 'upstream_timeout'],
    ['a reset before headers', { type: 'reset' }, 502, 'upstream_error'],
  ] as const)('maps %s before the first byte to the error table, charging nothing', async (_name, scenario, status, code) => {
    vendor.fake().setScenario(scenario);
    for (const stream of [false, true]) {
      const res = stream ? await streamChat(gw.url, key.raw, ask(vendor.model)) : await chat(gw.url, key.raw, ask(vendor.model));
      const body = 'text' in res ? (JSON.parse(res.text) as { error: Record<string, unknown> }) : res.body;
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(body.error).toMatchObject({ code });
      if (status === 429) expect(res.headers.get('retry-after')).toBe('7');
      expect(JSON.stringify(body)).not.toContain(vendor.name === 'openai' ? OPENAI_KEY : ANTHROPIC_KEY);
      expect(await ledgerEntry(gw.url, key.accountId, res.headers.get('x-service-request-id') ?? '')).toBeUndefined();
    }
  });

  it.each([
    ['a broken SSE line', { type: 'broken-stream', afterFrames: 3 }],
    ['a truncated frame', { type: 'truncated-stream', afterFrames: 3 }],
    ['an in-stream error event', { type: 'stream-error', afterFrames: 3 }],
    ['a connection reset', { type: 'reset', afterFrames: 3 }],
  ] as const)('ends a stream cut by %s with an error chunk, a usage chunk and [DONE]', async (_name, scenario) => {
    vendor.fake().setScenario(scenario);
    const result = await streamChat(gw.url, key.raw, ask(vendor.model));
    expect(result.status).toBe(200);
    expect(result.done).toBe(true);
    const [errorChunk, usageChunk] = result.events.slice(-2);
    expect(errorChunk).toMatchObject({ error: { code: 'upstream_error' }, choices: [{ index: 0, delta: {}, finish_reason: 'error' }] });
    expect(usageChunk?.choices).toEqual([]);
    const entry = await ledgerEntry(gw.url, key.accountId, result.headers.get('x-service-request-id') ?? '');
    expect(entry?.cost_usd).toBe(usageChunk?.usage.cost);
    expect(entry?.cost_usd).toBeGreaterThan(0);
  });
});

describe('reasoning', () => {
  it('maps reasoning options to Anthropic thinking and strips the output with exclude', async () => {
    const shown = await chat(gw.url, key.raw, ask('fake/claude', { max_tokens: 4000, reasoning: { max_tokens: 2048 } }));
    expect((anthropic.requests.at(-1)?.body as { thinking?: unknown }).thinking).toMatchObject({ type: 'enabled' });
    expect(shown.body.choices[0].message.reasoning).toBe('Let me think about this.');
    const hidden = await chat(gw.url, key.raw, ask('fake/claude', { max_tokens: 4000, reasoning: { max_tokens: 2048, exclude: true } }));
    expect(hidden.body.choices[0].message).not.toHaveProperty('reasoning');
    const streamed = await streamChat(gw.url, key.raw, ask('fake/claude', { max_tokens: 4000, reasoning: { max_tokens: 2048, exclude: true } }));
    expect(streamed.text).not.toContain('Let me think');
    expect(streamedText(streamed)).toBe('Hello from the fake Claude.');
  });

  it('sends reasoning effort to OpenAI-compatible upstreams', async () => {
    const res = await chat(gw.url, key.raw, ask('fake/gpt', { reasoning: { effort: 'high' } }));
    expect(res.status).toBe(200);
    expect((openai.requests.at(-1)?.body as { reasoning_effort?: unknown }).reasoning_effort).toBe('high');
  });
});

describe('provider state', () => {
  it('answers 503 for a model whose provider has no credentials', async () => {
    const res = await chat(gw.url, key.raw, ask('fake/off'));
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('service_unavailable');
  });

  it('passes unknown fields through to OpenAI-compatible upstreams', async () => {
    await chat(gw.url, key.raw, ask('fake/gpt', { logit_bias: { '50256': -100 }, user: 'u-1' }));
    expect(openai.requests.at(-1)?.body).toMatchObject({ logit_bias: { '50256': -100 }, user: 'u-1' });
  });
});
