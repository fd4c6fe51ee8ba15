import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { APIError } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic } from '../../fixtures/upstreams/fake-anthropic.js';
import { startFakeOpenAi, type FakeUpstream } from '../../fixtures/upstreams/fake-openai.js';
import { adminClient } from '../../helpers/admin-client.js';
import { answeredRecorder } from '../../helpers/spec-recorder.js';
import { spawnWeb, type WebProcess } from '../../helpers/spawn-web.js';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';

const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** Usage as Farebox sends it: the SDK's type plus `cost`. */
type CostedUsage = OpenAI.CompletionUsage & { cost: number };

let openaiFake: FakeUpstream;
let anthropicFake: FakeUpstream;
let dir: string;
let setup: TestGateway;
let web: WebProcess;
let client: OpenAI;
let rawKey: string;

beforeAll(async () => {
  openaiFake = await startFakeOpenAi({ apiKey: 'sk-e2e-fake-openai-key-000000' });
  anthropicFake = await startFakeAnthropic({ apiKey: 'sk-ant-e2e-fake-key-000000' });
  dir = await mkdtemp(join(tmpdir(), 'fbx-e2e-chat-'));
  const providersFile = join(dir, 'providers.json');
  await writeFile(providersFile, JSON.stringify([
    { id: 'local', kind: 'local' },
    { id: 'fake-openai', kind: 'openai', base_url: `${openaiFake.url}/v1`, api_key_env: 'FAKE_OPENAI_KEY' },
    { id: 'fake-anthropic', kind: 'anthropic', base_url: anthropicFake.url, api_key_env: 'FAKE_ANTHROPIC_KEY' },
  ]));
  const env = testEnv({
    LOG_LEVEL: 'warn',
    PROVIDERS_FILE: providersFile,
    FAKE_OPENAI_KEY: 'sk-e2e-fake-openai-key-000000',
    FAKE_ANTHROPIC_KEY: 'sk-ant-e2e-fake-key-000000',
  });
  // The in-process gateway plays the release step (indexes, catalog) and the operator.
  setup = await startTestGateway({ env });
  const admin = adminClient(setup.url);
  const entry = (provider: string, upstream_model: string) => ({
    name: upstream_model, kind: 'chat', provider, upstream_model,
    pricing: { prompt: '0.000001', completion: '0.000002' }, capabilities: ['TOOLS'], context_length: 100_000,
  });
  await admin.call('PUT', '/models/fake/gpt', entry('fake-openai', 'gpt-4o-mini'));
  await admin.call('PUT', '/models/fake/claude', entry('fake-anthropic', 'claude-sonnet-4-20250514'));
  const accountId = await admin.createAccount();
  await admin.topup(accountId, 5);
  rawKey = (await admin.mintKey(accountId)).raw;
  web = await spawnWeb(env);
  client = new OpenAI({ apiKey: rawKey, baseURL: `${web.url}/v1`, maxRetries: 0, fetch: answeredRecorder.fetch });
}, 180_000);
afterAll(async () => {
  await web?.stop();
  await setup?.close();
  await openaiFake?.close();
  await anthropicFake?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});
beforeEach(() => openaiFake.setScenario({ type: 'normal' }));

const WEATHER_TOOL: OpenAI.Chat.ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather by city', parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] } },
};

describe('the openai SDK against Farebox', () => {
  it('chats and reads usage.cost', async () => {
    const completion = await client.chat.completions.create({ model: 'local/echo', messages: [{ role: 'user', content: 'hello sdk' }] });
    expect(completion.model).toBe('local/echo');
    expect(completion.choices[0]?.message.content).toBe('Echo: hello sdk');
    const usage = completion.usage as CostedUsage;
    expect(usage.cost).toBe((usage.prompt_tokens * 1000 + usage.completion_tokens * 2000) / 1e9);
  });

  it.each(['local/echo', 'fake/gpt', 'fake/claude'])('streams %s and finds usage.cost on the last chunk', async (model) => {
    const stream = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'stream please' }], stream: true });
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text.length).toBeGreaterThan(0);
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect((last?.usage as CostedUsage).cost).toBeGreaterThan(0);
    expect(chunks.every((c) => c.model === model)).toBe(true);
  });

  it.each(['local/echo', 'fake/gpt', 'fake/claude'])('completes a tool-call round trip on %s', async (model) => {
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Use get_weather: weather in Paris?' }];
    const first = await client.chat.completions.create({ model, messages, tools: [WEATHER_TOOL] });
    const call = first.choices[0]?.message.tool_calls?.[0];
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    if (call?.type !== 'function') throw new Error('expected a function call');
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toHaveProperty('location');
    messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: '{"temp_c": 21}' });
    const second = await client.chat.completions.create({ model, messages, tools: [WEATHER_TOOL], tool_choice: 'none' });
    expect(second.choices[0]?.message.content).toBeTruthy();
    if (model === 'local/echo') expect(second.choices[0]?.message.content).toBe('Tool result: {"temp_c": 21}');
  });

  it('returns JSON matching a json_schema response format', async () => {
    const completion = await client.chat.completions.create({
      model: 'local/echo',
      messages: [{ role: 'user', content: 'give me a city' }],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'city', strict: true, schema: { type: 'object', properties: { name: { type: 'string' }, population: { type: 'integer' } }, required: ['name', 'population'], additionalProperties: false } },
      },
    });
    const parsed = JSON.parse(completion.choices[0]?.message.content ?? '') as { name: unknown; population: unknown };
    expect(typeof parsed.name).toBe('string');
    expect(Number.isInteger(parsed.population)).toBe(true);
  });

  it('accepts a vision data URL', async () => {
    const completion = await client.chat.completions.create({
      model: 'local/echo',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'describe' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_1X1}` } }] }],
    });
    expect(completion.choices[0]?.message.content).toContain('[1 image received]');
  });

  it.each([
    ['an unknown model', { model: 'nope/nothing', messages: [{ role: 'user', content: 'x' }] }, 404, 'model_not_found', 'model'],
    ['an image model', { model: 'local/canvas-image', messages: [{ role: 'user', content: 'x' }] }, 400, 'wrong_endpoint', 'model'],
    ['an empty conversation', { model: 'local/echo', messages: [] }, 400, 'invalid_request', 'messages'],
    ['a bad data URL', { model: 'local/echo', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,!!' } }] }] }, 400, 'invalid_request', 'messages.0.content.0.image_url.url'],
  ] as const)('raises a typed APIError for %s', async (_name, body, status, code, param) => {
    const error = await client.chat.completions.create(body as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(status);
    expect((error as APIError).code).toBe(code);
    expect((error as APIError).param).toBe(param);
  });

  it('raises AuthenticationError for a bad key and RateLimitError for an upstream 429', async () => {
    const stranger = new OpenAI({ apiKey: 'sk-fbx-not-a-real-key', baseURL: `${web.url}/v1`, maxRetries: 0 });
    await expect(stranger.chat.completions.create({ model: 'local/echo', messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    openaiFake.setScenario({ type: 'error', status: 429, body: '{"error":{"message":"slow down"}}', headers: { 'retry-after': '3' } });
    const error = await client.chat.completions.create({ model: 'fake/gpt', messages: [{ role: 'user', content: 'x' }] }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error as APIError).code).toBe('rate_limited');
    expect((error as APIError).headers?.get('retry-after')).toBe('3');
  });
});
