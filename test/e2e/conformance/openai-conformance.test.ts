import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { APIError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic } from '../../fixtures/upstreams/fake-anthropic.js';
import { FAKE_ANNOTATION, startFakeOpenAi, type FakeUpstream } from '../../fixtures/upstreams/fake-openai.js';
import { startFakeOpenAiImages, type FakeOpenAiImages } from '../../fixtures/upstreams/fake-openai-images.js';
import { textPdf } from '../../fixtures/documents/test-pdfs.js';
import { adminClient, call } from '../../helpers/admin-client.js';
import { startQueueGateway, type QueueGateway } from '../../integration/queue/queue-gateway.js';
import { countBySchema, SpecRecorder, specProblems } from '../../helpers/spec-recorder.js';

/**
 * Every JSON body and stream chunk Farebox answers in these scenarios (chat of each provider
 * kind, streamed and not, reasoning, tools, JSON, a mid-stream failure, images, models, errors)
 * is validated against OpenAI's published spec at the end.
 */
const recorder = new SpecRecorder();
const DEEPSEEK_REASONING = 'First I think, then I answer.';

let gateway: QueueGateway;
let deepseek: FakeUpstream;
let anthropic: FakeUpstream;
let images: FakeOpenAiImages;
let dir: string;
let client: OpenAI;

beforeAll(async () => {
  deepseek = await startFakeOpenAi({ apiKey: 'sk-fake-deepseek', reasoningContent: DEEPSEEK_REASONING, logprobs: true, annotations: true });
  anthropic = await startFakeAnthropic({ apiKey: 'sk-ant-fake' });
  images = await startFakeOpenAiImages();
  dir = await mkdtemp(join(tmpdir(), 'fbx-conformance-'));
  const providersFile = join(dir, 'providers.json');
  await writeFile(providersFile, JSON.stringify([
    { id: 'local', kind: 'local' },
    { id: 'fake-deepseek', kind: 'openai', base_url: `${deepseek.url}/v1`, api_key_env: 'FAKE_DEEPSEEK_KEY' },
    { id: 'fake-anthropic', kind: 'anthropic', base_url: anthropic.url, api_key_env: 'FAKE_ANTHROPIC_KEY' },
    { id: 'openai-images', kind: 'openai-images', base_url: images.baseUrl, api_key_env: 'FAKE_IMAGES_KEY' },
    { id: 'switched-off', kind: 'openai', base_url: 'https://switched-off.invalid/v1', api_key_env: 'SWITCHED_OFF_SECRET_VAR' },
  ]));
  gateway = await startQueueGateway({
    env: { PROVIDERS_FILE: providersFile, FAKE_DEEPSEEK_KEY: 'sk-fake-deepseek', FAKE_ANTHROPIC_KEY: 'sk-ant-fake', FAKE_IMAGES_KEY: 'sk-fake-images' },
  });
  const admin = adminClient(gateway.gw.url);
  const chatEntry = (provider: string, upstream_model: string) => ({
    name: upstream_model, kind: 'chat', provider, upstream_model, pricing: { prompt: '0.000001', completion: '0.000002' }, capabilities: ['TOOLS', 'REASONING'],
  });
  await admin.call('PUT', '/models/fake/deepseek', chatEntry('fake-deepseek', 'deepseek-reasoner'));
  await admin.call('PUT', '/models/fake/claude', chatEntry('fake-anthropic', 'claude-sonnet-4-20250514'));
  await admin.call('PUT', '/models/fake/off', chatEntry('switched-off', 'gpt-4o'));
  const { raw } = await gateway.fundedKey(5);
  client = new OpenAI({ apiKey: raw, baseURL: `${gateway.gw.url}/v1`, maxRetries: 0, fetch: recorder.fetch });
}, 180_000);
afterAll(async () => {
  await gateway?.close();
  await Promise.all([deepseek?.close(), anthropic?.close(), images?.close()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

const ask = (content: string) => [{ role: 'user' as const, content }];
const WEATHER: OpenAI.Chat.ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] } },
};

/** Reads a stream to the end, returning every chunk. */
async function drain(stream: AsyncIterable<OpenAI.Chat.ChatCompletionChunk>): Promise<OpenAI.Chat.ChatCompletionChunk[]> {
  const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

/** Message fields beyond the SDK's types that Farebox sends. */
type WireMessage = { reasoning?: string; reasoning_content?: string };

describe('chat responses carry the fields the spec requires', () => {
  it('answers local models with logprobs and refusal null', async () => {
    const completion = await client.chat.completions.create({ model: 'local/echo', messages: ask('hello') });
    const choice = completion.choices[0]!;
    expect(choice.logprobs).toBeNull();
    expect(choice.message.refusal).toBeNull();
    expect(choice.message.content).toBe('Echo: hello');
  });

  it.each([
    ['reasoning_effort', { reasoning_effort: 'low' as const }],
    ['reasoning object', { reasoning: { effort: 'low' } }],
    ['include_reasoning', { include_reasoning: true }],
  ])('shows reasoning under both names for %s', async (_name, extra) => {
    const completion = await client.chat.completions.create({ model: 'local/echo', messages: ask('think'), ...extra } as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming);
    const message = completion.choices[0]!.message as typeof completion.choices[0]['message'] & WireMessage;
    expect(message.reasoning).toContain('The user wrote');
    expect(message.reasoning_content).toBe(message.reasoning);
  });

  it('strips both reasoning names with reasoning.exclude, streamed and not', async () => {
    const body = { model: 'local/echo', messages: ask('think quietly'), reasoning: { effort: 'low', exclude: true } };
    const completion = await client.chat.completions.create(body as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming);
    expect(completion.choices[0]!.message).not.toHaveProperty('reasoning');
    expect(completion.choices[0]!.message).not.toHaveProperty('reasoning_content');
    const chunks = await drain(await client.chat.completions.create({ ...body, stream: true } as OpenAI.Chat.ChatCompletionCreateParamsStreaming));
    const deltas = chunks.flatMap((c) => c.choices.map((choice) => choice.delta));
    expect(deltas.length).toBeGreaterThan(2);
    expect(JSON.stringify(deltas)).not.toMatch(/"reasoning(_content)?"/);
    // Excluded reasoning is still produced, and billed.
    expect(chunks.at(-1)?.usage?.completion_tokens_details?.reasoning_tokens).toBeGreaterThan(0);
  });

  it('streams reasoning deltas under both names', async () => {
    const chunks = await drain(await client.chat.completions.create({ model: 'local/echo', messages: ask('stream thinking'), reasoning_effort: 'medium', stream: true }));
    const deltas = chunks.flatMap((c) => c.choices.map((choice) => choice.delta as typeof choice.delta & WireMessage));
    const reasoning = deltas.map((d) => d.reasoning ?? '').join('');
    expect(reasoning).toContain('The user wrote');
    expect(deltas.map((d) => d.reasoning_content ?? '').join('')).toBe(reasoning);
  });

  it('relays an upstream reasoning_content, logprobs and annotations (non-streamed)', async () => {
    const completion = await client.chat.completions.create({ model: 'fake/deepseek', messages: ask('cite'), logprobs: true });
    const choice = completion.choices[0]!;
    const message = choice.message as typeof choice.message & WireMessage;
    expect(message.reasoning).toBe(DEEPSEEK_REASONING);
    expect(message.reasoning_content).toBe(DEEPSEEK_REASONING);
    expect(message.annotations).toEqual([FAKE_ANNOTATION]);
    expect(choice.logprobs?.content?.[0]?.logprob).toBe(-0.25);
  });

  it('relays an upstream reasoning_content, logprobs and annotations (streamed)', async () => {
    const chunks = await drain(await client.chat.completions.create({ model: 'fake/deepseek', messages: ask('cite'), logprobs: true, stream: true }));
    const choices = chunks.flatMap((c) => c.choices);
    const deltas = choices.map((c) => c.delta as typeof c.delta & WireMessage & { annotations?: unknown[] });
    expect(deltas.map((d) => d.reasoning_content ?? '').join('')).toBe(DEEPSEEK_REASONING);
    expect(deltas.map((d) => d.reasoning ?? '').join('')).toBe(DEEPSEEK_REASONING);
    expect(deltas.flatMap((d) => d.annotations ?? [])).toEqual([FAKE_ANNOTATION]);
    const tokens = choices.flatMap((c) => c.logprobs?.content ?? []).map((t) => t.token).join('');
    expect(tokens).toBe('Hello from the fake upstream.');
  });

  it('answers tools, JSON and several choices', async () => {
    const tools = await client.chat.completions.create({ model: 'local/echo', messages: ask('use get_weather for Paris'), tools: [WEATHER] });
    expect(tools.choices[0]!.finish_reason).toBe('tool_calls');
    const call = tools.choices[0]!.message.tool_calls?.[0];
    expect(call?.type === 'function' ? call.function.name : undefined).toBe('get_weather');
    expect(call?.type === 'function' ? JSON.parse(call.function.arguments) : undefined).toBeTypeOf('object');
    const streamed = await drain(await client.chat.completions.create({ model: 'local/echo', messages: ask('call get_weather'), tools: [WEATHER], stream: true }));
    const streamedCalls = streamed.flatMap((c) => c.choices.flatMap((choice) => choice.delta.tool_calls ?? []));
    expect(streamedCalls.map((c) => c.function?.name).filter(Boolean)).toEqual(['get_weather']);
    expect(streamed.flatMap((c) => c.choices.map((choice) => choice.finish_reason)).filter(Boolean)).toEqual(['tool_calls']);
    const json = await client.chat.completions.create({ model: 'local/echo', messages: ask('json'), response_format: { type: 'json_object' } });
    // json_object mode answers a JSON object (the local model echoes the prompt inside one).
    expect(JSON.parse(json.choices[0]!.message.content ?? '')).toEqual({ echo: 'json' });
    const many = await client.chat.completions.create({ model: 'local/echo', messages: ask('twice'), n: 2 });
    expect(many.choices.map((c) => c.index)).toEqual([0, 1]);
  });

  it.each([
    ['fake/claude', 'Hello from the fake Claude.'],
    ['fake/deepseek', 'Hello from the fake upstream.'],
  ])('answers %s streamed and not, with the same text and usage', async (model, reply) => {
    const whole = await client.chat.completions.create({ model, messages: ask('hello') });
    expect(whole.model).toBe(model);
    expect(whole.choices.map((c) => [c.message.content, c.finish_reason])).toEqual([[reply, 'stop']]);
    expect(whole.usage?.completion_tokens).toBeGreaterThan(0);
    const chunks = await drain(await client.chat.completions.create({ model, messages: ask('hello'), stream: true }));
    expect(chunks.flatMap((c) => c.choices.map((choice) => choice.delta.content ?? '')).join('')).toBe(reply);
    expect(chunks.flatMap((c) => c.choices.map((choice) => choice.finish_reason)).filter(Boolean)).toEqual(['stop']);
    expect(chunks.at(-1)?.usage?.completion_tokens).toBe(whole.usage?.completion_tokens);
  });

  it('reports a mid-stream failure in an error chunk, then usage', async () => {
    const stream = await client.chat.completions.create({ model: 'local/echo', messages: ask('break [[local:fail-after=2]] now please'), stream: true });
    await expect(drain(stream)).rejects.toBeInstanceOf(APIError);
    await recorder.settle();
    const errorChunk = recorder.documents.find((d) => d.part === 'chunk' && typeof d.json === 'object' && d.json !== null && 'error' in d.json);
    expect(errorChunk?.json).toMatchObject({ choices: [{ finish_reason: 'error' }], error: { code: 'upstream_error' } });
  });
});

describe('images, models and errors', () => {
  it('answers image generations with OpenAI token usage plus cost', async () => {
    const local = await client.images.generate({ model: 'local/instant-image', prompt: 'a red square', size: '256x256' });
    expect(local.usage).toMatchObject({ input_tokens: 0, output_tokens: 0, total_tokens: 0, input_tokens_details: { text_tokens: 0, image_tokens: 0 } });
    const gpt = await client.images.generate({ model: 'openai/gpt-image-1', prompt: 'a red square' });
    const usage = gpt.usage as NonNullable<typeof gpt.usage> & { cost: number };
    expect(usage).toMatchObject({ input_tokens: 50, total_tokens: usage.input_tokens + usage.output_tokens, input_tokens_details: { text_tokens: 10, image_tokens: 40 } });
    // gpt-image-1 prices: text input 0.000005, image input 0.00001, image output 0.00004 per token.
    expect(usage.cost).toBeCloseTo(10 * 0.000005 + 40 * 0.00001 + usage.output_tokens * 0.00004, 12);
  });

  it('lists and retrieves only servable models, in both id forms', async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(expect.arrayContaining(['local/echo', 'fake/deepseek', 'openai/gpt-image-1']));
    expect(ids).not.toContain('fake/off');
    expect(ids).not.toContain('anthropic/claude-sonnet-4');
    expect((await client.models.retrieve('local/echo')).id).toBe('local/echo');
    const plain = await recorder.fetch(`${gateway.gw.url}/v1/models/local/echo`);
    expect(((await plain.json()) as { id: string }).id).toBe('local/echo');
    await expect(client.models.retrieve('fake/off')).rejects.toMatchObject({ status: 404 });
  });

  it('shows operators every entry with its availability', async () => {
    const res = await adminClient(gateway.gw.url).call('GET', '/models');
    const entries = res.body.data as Array<{ id: string; available: boolean; provider: string }>;
    expect(entries.find((m) => m.id === 'fake/off')).toMatchObject({ available: false, provider: 'switched-off' });
    expect(entries.find((m) => m.id === 'local/echo')).toMatchObject({ available: true });
    expect(entries.find((m) => m.id === 'anthropic/claude-sonnet-4')?.available).toBe(false);
  });

  it('answers a disabled provider with 503 naming no configuration', async () => {
    const err = await client.chat.completions.create({ model: 'fake/off', messages: ask('x') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIError);
    const apiError = err as APIError;
    expect([apiError.status, apiError.code]).toEqual([503, 'service_unavailable']);
    expect(apiError.message).not.toMatch(/SWITCHED_OFF|switched-off|invalid|credential|API_KEY|_KEY/i);
  });

  it.each([
    ['an unknown model', { model: 'nope/nothing', messages: ask('x') }, 404],
    ['an image model on chat', { model: 'local/instant-image', messages: ask('x') }, 400],
    ['an empty conversation', { model: 'local/echo', messages: [] }, 400],
  ])('answers %s in the error shape', async (_name, body, status) => {
    await expect(client.chat.completions.create(body as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming)).rejects.toMatchObject({ status });
  });

  it('answers a bad key and an unknown route in the error shape', async () => {
    const bad = await recorder.fetch(`${gateway.gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer sk-fbx-nope', 'content-type': 'application/json' }, body: '{}' });
    expect(bad.status).toBe(401);
    expect((await recorder.fetch(`${gateway.gw.url}/v1/nothing-here`)).status).toBe(404);
    expect((await call(gateway.gw.url, 'GET', '/v1/models/no/such')).status).toBe(404);
  });
});

describe("Mistral's OCR pages option", () => {
  it('reads and bills only the requested pages, and refuses pages the document lacks', async () => {
    const pdf = await textPdf([['page zero'], ['page one'], ['page two']]);
    const document = { type: 'document_url', document_url: `data:application/pdf;base64,${pdf.toString('base64')}` };
    const { raw } = await gateway.fundedKey(1);
    const ocr = (extra: Record<string, unknown>) => call(gateway.gw.url, 'POST', '/v1/ocr', { token: raw, body: { model: 'local/reader', document, ...extra } });
    const two = await ocr({ pages: '0,2' });
    expect(two.status).toBe(200);
    expect(two.body.pages.map((p: { index: number }) => p.index)).toEqual([0, 2]);
    expect(two.body.usage_info.pages_processed).toBe(2);
    expect(two.body.usage.cost).toBe(0.002);
    const charged = await gateway.charge(two.headers.get('x-service-request-id') ?? '');
    expect(charged).not.toBeNull();
    const missing = await ocr({ pages: [5] });
    expect([missing.status, missing.body.error.code, missing.body.error.param]).toEqual([400, 'invalid_request', 'pages']);
    expect(await gateway.charge(missing.headers.get('x-service-request-id') ?? '')).toBeNull();
  });
});

describe('conformance with the OpenAI spec', () => {
  it('finds a missing required field (the check can fail)', () => {
    const chunk = { id: 'x', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta: {}, finish_reason: null }] };
    const problems = specProblems([{ method: 'POST', path: '/v1/chat/completions', status: 200, part: 'chunk', json: chunk }]);
    expect(problems.map((p) => p.schema)).toEqual(['CreateChatCompletionStreamResponse']);
    expect(specProblems([{ method: 'POST', path: '/v1/chat/completions', status: 200, part: 'body', json: { id: 'x', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'x' } }] } }])).toHaveLength(1);
  });

  it('validates every body and chunk answered above', async () => {
    const documents = await recorder.settle();
    const counts = countBySchema(documents);
    expect(counts.CreateChatCompletionResponse).toBeGreaterThanOrEqual(10);
    expect(counts.CreateChatCompletionStreamResponse).toBeGreaterThanOrEqual(30);
    expect(counts.ImagesResponse).toBeGreaterThanOrEqual(2);
    expect(counts.ListModelsResponse).toBeGreaterThanOrEqual(1);
    expect(counts.Model).toBeGreaterThanOrEqual(2);
    expect(counts.ErrorResponse).toBeGreaterThanOrEqual(6);
    expect(specProblems(documents)).toEqual([]);
  });
});
