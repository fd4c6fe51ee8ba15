import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens } from '../../../src/billing/tokenizer.js';
import { adminClient } from '../../helpers/admin-client.js';
import type { TestGateway } from '../../helpers/test-gateway.js';
import { chat, fundedKey, ledgerEntry, type FundedKey } from '../chat/chat-client.js';
import { startQueueGateway, type QueueGateway } from '../queue/queue-gateway.js';
import { adminGet, adminText, waitRecord } from '../ledger/records/records-client.js';
import { embed, nano } from './embeddings-client.js';

/** local/hashed-ngrams' price in the seed catalog, USD per input token. */
const PRICE = 0.00000001;
const MODEL = 'local/hashed-ngrams';

let queued: QueueGateway;
let gw: TestGateway;
let key: FundedKey;

// With the queue routes mounted, so image and OCR refusals of embedding models are seen too.
beforeAll(async () => {
  queued = await startQueueGateway({ workers: false });
  gw = queued.gw;
  key = await fundedKey(gw.url, 2);
});
afterAll(async () => queued?.close());

describe('POST /v1/embeddings with the local model', () => {
  it('answers OpenAI’s shape with unit vectors, bills the exact token count and records the charge', async () => {
    const input = ['The quick brown fox jumps over the lazy dog.', 'Embeddings are metered like chat.'];
    const res = await embed(gw.url, key.raw, { model: MODEL, input });
    expect(res.status).toBe(200);
    expect(res.body.object).toBe('list');
    expect(res.body.model).toBe(MODEL);
    expect(res.body.data.map((d: { index: number; object: string }) => [d.object, d.index])).toEqual([['embedding', 0], ['embedding', 1]]);
    for (const d of res.body.data as Array<{ embedding: number[] }>) {
      expect(d.embedding).toHaveLength(384);
      expect(Math.hypot(...d.embedding)).toBeCloseTo(1, 5);
    }
    const tokens = input.reduce((sum, text) => sum + countTokens(text), 0);
    expect(res.body.usage).toMatchObject({ prompt_tokens: tokens, total_tokens: tokens });
    expect(nano(res.body.usage.cost as number)).toBe(nano(tokens * PRICE));
    const requestId = res.headers.get('x-service-request-id') ?? '';
    const entry = await ledgerEntry(gw.url, key.accountId, requestId);
    expect(nano(entry?.cost_usd as number)).toBe(nano(res.body.usage.cost as number));
    expect(entry?.units).toEqual({ prompt: tokens });
    const record = await waitRecord(gw.url, requestId);
    expect(record).toMatchObject({ model: MODEL, provider: 'local', status: 200 });
    const usage = await adminGet(gw.url, '/usage');
    const rows = (usage.body.data as Array<{ model: string; input_tokens: number }>).filter((r) => r.model === MODEL);
    expect(rows.reduce((sum, r) => sum + r.input_tokens, 0)).toBeGreaterThanOrEqual(tokens);
    const metrics = (await adminText(gw.url, '/metrics')).text;
    expect(metrics).toMatch(/farebox_requests_total\{endpoint="\/v1\/embeddings",model="local\/hashed-ngrams",provider="local",status="200"\} [1-9]/);
    expect(metrics).toMatch(/farebox_tokens_total\{model="local\/hashed-ngrams",provider="local",direction="input"\} [1-9]/);
    expect(metrics).toMatch(/farebox_ledger_charges_total\{source="embeddings"\} [1-9]/);
  });

  it('returns the same vector as base64 float32 when asked, and honours dimensions', async () => {
    const float = await embed(gw.url, key.raw, { model: MODEL, input: 'same text both ways' });
    const b64 = await embed(gw.url, key.raw, { model: MODEL, input: 'same text both ways', encoding_format: 'base64' });
    expect(typeof b64.body.data[0].embedding).toBe('string');
    const bytes = Buffer.from(b64.body.data[0].embedding as string, 'base64');
    const decoded = Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
    expect(decoded).toEqual(float.body.data[0].embedding);
    const short = await embed(gw.url, key.raw, { model: MODEL, input: 'short vector', dimensions: 64, user: 'user-1234' });
    expect(short.status).toBe(200);
    expect(short.body.data[0].embedding).toHaveLength(64);
  });

  it('counts token-id inputs by their length', async () => {
    const res = await embed(gw.url, key.raw, { model: MODEL, input: [[9906, 1917, 0], [40, 1093]] });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(2);
    expect(res.body.usage.prompt_tokens).toBe(5);
    const one = await embed(gw.url, key.raw, { model: MODEL, input: [9906, 1917] });
    expect(one.body.data).toHaveLength(1);
    expect(one.body.usage.prompt_tokens).toBe(2);
  });
});

describe('refusals', () => {
  it('sends chat and image models elsewhere, and embedding models away from chat, images and OCR', async () => {
    const onEmbeddings = await embed(gw.url, key.raw, { model: 'local/echo', input: 'x' });
    expect(onEmbeddings.status).toBe(400);
    expect(onEmbeddings.body.error).toMatchObject({ code: 'wrong_endpoint', param: 'model' });
    expect(onEmbeddings.body.error.message).toContain('/v1/chat/completions');
    const image = await embed(gw.url, key.raw, { model: 'local/instant-image', input: 'x' });
    expect(image.body.error.message).toContain('/v1/images/generations');
    const onChat = await chat(gw.url, key.raw, { model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
    expect(onChat.status).toBe(400);
    expect(onChat.body.error.code).toBe('wrong_endpoint');
    expect(onChat.body.error.message).toContain('/v1/embeddings');
    for (const [path, body] of [
      ['/v1/images/generations', { model: MODEL, prompt: 'a cat' }],
      ['/v1/ocr', { model: MODEL, document: { type: 'document_url', document_url: 'https://example.com/paper.pdf' } }],
    ] as const) {
      const res = await fetch(`${gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key.raw}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const json = (await res.json()) as { error: { code: string; message: string } };
      expect([path, res.status, json.error.code]).toEqual([path, 400, 'wrong_endpoint']);
      expect(json.error.message).toContain('/v1/embeddings');
    }
  });

  it('names the input that is too long, empty or of the wrong type', async () => {
    const long = 'word '.repeat(9_000);
    const res = await embed(gw.url, key.raw, { model: MODEL, input: ['a', 'b', 'c', long] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'input[3]' });
    expect((await embed(gw.url, key.raw, { model: MODEL, input: long })).body.error.param).toBe('input');
    expect((await embed(gw.url, key.raw, { model: MODEL, input: ['ok', ''] })).body.error.param).toBe('input[1]');
    expect((await embed(gw.url, key.raw, { model: MODEL, input: ['ok', 3] })).body.error.param).toBe('input[1]');
    expect((await embed(gw.url, key.raw, { model: MODEL, input: [[1, 2], [-1]] })).body.error.param).toBe('input[1][0]');
    expect((await embed(gw.url, key.raw, { model: MODEL })).body.error.param).toBe('input');
    expect((await embed(gw.url, key.raw, { model: MODEL, input: 'x', encoding_format: 'int8' })).body.error.param).toBe('encoding_format');
  });

  it('takes at most 2,048 inputs', async () => {
    const ok = await embed(gw.url, key.raw, { model: MODEL, input: Array.from({ length: 2048 }, (_, i) => `item ${i}`) });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toHaveLength(2048);
    const over = await embed(gw.url, key.raw, { model: MODEL, input: Array.from({ length: 2049 }, (_, i) => `item ${i}`) });
    expect(over.status).toBe(400);
    expect(over.body.error.param).toBe('input');
  });

  it('answers a hostile single-piece input with a 400, not a stall or a 500', async () => {
    const blob = 'q'.repeat(4 * 1024 * 1024);
    const [res, health] = await Promise.all([embed(gw.url, key.raw, { model: MODEL, input: [blob] }), fetch(`${gw.url}/healthz`)]);
    expect(health.status).toBe(200);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('input[0]');
  });

  it('refuses dimensions on a fixed-length model and beyond a model’s length', async () => {
    await adminClient(gw.url).call('PUT', '/models/test/fixed-embed', {
      name: 'fixed', kind: 'embedding', provider: 'local', upstream_model: 'hashed-ngrams', pricing: { prompt: '0.00000001' }, context_length: 512, dimensions: 384,
    });
    await gw.deps.catalog.reload();
    const fixed = await embed(gw.url, key.raw, { model: 'test/fixed-embed', input: 'x', dimensions: 8 });
    expect(fixed.body.error).toMatchObject({ code: 'model_capability_missing', param: 'dimensions' });
    const big = await embed(gw.url, key.raw, { model: MODEL, input: 'x', dimensions: 385 });
    expect(big.body.error).toMatchObject({ code: 'invalid_request', param: 'dimensions' });
    const models = await fetch(`${gw.url}/v1/models/${MODEL}`).then((r) => r.json() as Promise<{ dimensions?: number }>);
    expect(models.dimensions).toBe(384);
  });

  it('keeps free-tier accounts to free models and asks unfunded paid accounts for credit', async () => {
    const free = await fundedKey(gw.url, 0);
    const res = await embed(gw.url, free.raw, { model: MODEL, input: 'hello' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('model_not_allowed');
    const tiny = await fundedKey(gw.url, '0.000000001');
    const poor = await embed(gw.url, tiny.raw, { model: MODEL, input: 'hello world, this costs more than one nano-dollar '.repeat(10) });
    expect(poor.status).toBe(402);
    expect(poor.body.error.code).toBe('insufficient_credits');
  });
});
