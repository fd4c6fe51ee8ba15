import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { countTokens } from '../../../src/billing/tokenizer.js';
import { fakeVector, startFakeOpenAiEmbeddings, type FakeUpstream } from '../../fixtures/upstreams/fake-openai-embeddings.js';
import { adminClient } from '../../helpers/admin-client.js';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { fundedKey, ledgerEntry, type FundedKey } from '../chat/chat-client.js';
import { embed, nano } from './embeddings-client.js';

const UPSTREAM_KEY = 'sk-fake-openai-embeddings-key-123456';
const PRICE = 0.00000002;
const PRICE_TEXT = '0.00000002';
/** What the `fake/embed` upstream reports per input: fewer than the gateway counts, so its figure is billed. */
const UPSTREAM_TOKENS_PER_INPUT = 2;

let exact: FakeUpstream;
let inflated: FakeUpstream;
let silent: FakeUpstream;
let absurd: FakeUpstream;
let dir: string;
let gw: TestGateway;
let key: FundedKey;

/** Catalog entries over the three fakes: usage as recorded, usage far above any count, no usage. */
const ENTRIES = [
  ['fake/embed', 'fake-exact'],
  ['fake/embed-inflated', 'fake-inflated'],
  ['fake/embed-silent', 'fake-silent'],
  ['fake/embed-absurd', 'fake-absurd'],
] as const;

beforeAll(async () => {
  exact = await startFakeOpenAiEmbeddings({ apiKey: UPSTREAM_KEY, reversed: true, promptTokens: (n) => n * UPSTREAM_TOKENS_PER_INPUT });
  inflated = await startFakeOpenAiEmbeddings({ apiKey: UPSTREAM_KEY, promptTokens: () => 1_000_000 });
  silent = await startFakeOpenAiEmbeddings({ apiKey: UPSTREAM_KEY, promptTokens: () => undefined });
  absurd = await startFakeOpenAiEmbeddings({ apiKey: UPSTREAM_KEY, promptTokens: () => 1e20 });
  dir = await mkdtemp(join(tmpdir(), 'fbx-embed-'));
  const providersFile = join(dir, 'providers.json');
  await writeFile(providersFile, JSON.stringify([
    { id: 'local', kind: 'local' },
    { id: 'fake-exact', kind: 'openai', base_url: `${exact.url}/v1`, api_key_env: 'FAKE_EMBED_KEY' },
    { id: 'fake-inflated', kind: 'openai', base_url: `${inflated.url}/v1`, api_key_env: 'FAKE_EMBED_KEY' },
    { id: 'fake-silent', kind: 'openai', base_url: `${silent.url}/v1`, api_key_env: 'FAKE_EMBED_KEY' },
    { id: 'fake-absurd', kind: 'openai', base_url: `${absurd.url}/v1`, api_key_env: 'FAKE_EMBED_KEY' },
  ]));
  gw = await startTestGateway({ env: testEnv({ LOG_LEVEL: 'error', PROVIDERS_FILE: providersFile, FAKE_EMBED_KEY: UPSTREAM_KEY, UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '1000' }) });
  const admin = adminClient(gw.url);
  for (const [id, provider] of ENTRIES) {
    const res = await admin.call('PUT', `/models/${id}`, {
      name: id, kind: 'embedding', provider, upstream_model: 'text-embedding-3-small', pricing: { prompt: PRICE_TEXT },
      capabilities: ['DIMENSIONS'], context_length: 8192, dimensions: 1536,
    });
    if (res.status !== 200) throw new Error(`PUT model ${res.status} ${JSON.stringify(res.body)}`);
  }
  await gw.deps.catalog.reload();
  key = await fundedKey(gw.url, 1);
});
afterAll(async () => {
  await gw?.close();
  await Promise.all([exact?.close(), inflated?.close(), silent?.close(), absurd?.close()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  for (const fake of [exact, inflated, silent]) {
    fake.setScenario({ type: 'normal' });
    fake.requests.length = 0;
  }
});

const balance = async (): Promise<number> => Number((await adminClient(gw.url).call('GET', `/accounts/${key.accountId}`)).body.data.balance_usd);

describe('embeddings through an OpenAI-compatible upstream', () => {
  it('sends OpenAI’s request shape and bills the upstream’s prompt_tokens', async () => {
    const input = ['the first text to embed', 'the second text to embed', 'the third text to embed'];
    const res = await embed(gw.url, key.raw, { model: 'fake/embed', input, dimensions: 8, user: 'user-42', encoding_format: 'base64' });
    expect(res.status).toBe(200);
    expect(exact.requests[0]?.body).toEqual({ model: 'text-embedding-3-small', input, encoding_format: 'float', dimensions: 8, user: 'user-42' });
    expect(exact.requests[0]?.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    // The fake answers in reverse order; the gateway puts vectors back in input order.
    const decoded = (res.body.data as Array<{ index: number; embedding: string }>).map((d) => {
      const bytes = Buffer.from(d.embedding, 'base64');
      return Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
    });
    decoded.forEach((vector, i) => expect(vector).toEqual(fakeVector(i, 8).map((x) => Math.fround(x))));
    const reported = input.length * UPSTREAM_TOKENS_PER_INPUT;
    expect(input.reduce((sum, t) => sum + countTokens(t), 0)).toBeGreaterThan(reported);
    expect(res.body.usage.prompt_tokens).toBe(reported);
    expect(nano(res.body.usage.cost as number)).toBe(nano(reported * PRICE));
  });

  it('passes token-id inputs through as they came', async () => {
    const res = await embed(gw.url, key.raw, { model: 'fake/embed', input: [[1, 2, 3], [4, 5, 6, 7, 8, 9, 10, 11, 12]] });
    expect(res.status).toBe(200);
    expect((exact.requests[0]?.body as { input: unknown }).input).toEqual([[1, 2, 3], [4, 5, 6, 7, 8, 9, 10, 11, 12]]);
    // Token-id inputs hold their length (12); the upstream reports its own figure, within it.
    expect(res.body.usage.prompt_tokens).toBe(2 * UPSTREAM_TOKENS_PER_INPUT);
  });

  it('never charges above the hold when the upstream reports more tokens: the rest is absorbed', async () => {
    const text = 'a short sentence to embed';
    const before = await balance();
    const res = await embed(gw.url, key.raw, { model: 'fake/embed-inflated', input: text });
    expect(res.status).toBe(200);
    const held = nano(countTokens(text) * PRICE);
    expect(res.body.usage.prompt_tokens).toBe(1_000_000);
    expect(nano(res.body.usage.cost as number)).toBe(held);
    const entry = await ledgerEntry(gw.url, key.accountId, res.headers.get('x-service-request-id') ?? '');
    // Billed the hold; the metered rest is recorded as absorbed beyond the hold.
    expect(nano(entry?.cost_usd as number)).toBe(held);
    expect(nano(entry?.charged_usd as number)).toBe(held);
    expect(nano(entry?.over_limit_usd as number)).toBe(nano(1_000_000 * PRICE) - held);
    expect(entry?.absorbed_reason).toBe('upstream_over_limit');
    expect(nano(before) - nano(await balance())).toBe(held);
  });

  it('records an absurd upstream count at a bounded maximum, never a 500', async () => {
    const text = 'absurd usage';
    const res = await embed(gw.url, key.raw, { model: 'fake/embed-absurd', input: text });
    expect(res.status).toBe(200);
    expect(res.body.usage.prompt_tokens).toBe(3_000_000);
    const entry = await ledgerEntry(gw.url, key.accountId, res.headers.get('x-service-request-id') ?? '');
    expect(nano(entry?.charged_usd as number)).toBe(nano(countTokens(text) * PRICE));
  });

  it('bills its own exact count when the upstream reports no usage', async () => {
    const input = ['no usage here', 'nor here'];
    const res = await embed(gw.url, key.raw, { model: 'fake/embed-silent', input });
    expect(res.status).toBe(200);
    expect(res.body.usage.prompt_tokens).toBe(input.reduce((sum, t) => sum + countTokens(t), 0));
  });

  it('charges nothing and frees the hold when the upstream fails or answers garbage', async () => {
    const before = await balance();
    exact.setScenario({ type: 'error', status: 500, body: JSON.stringify({ error: { message: 'boom', type: 'server_error', param: null, code: null } }) });
    const failed = await embed(gw.url, key.raw, { model: 'fake/embed', input: 'x' });
    expect(failed.status).toBe(502);
    exact.setScenario({ type: 'garbage' });
    const garbage = await embed(gw.url, key.raw, { model: 'fake/embed', input: 'x' });
    expect(garbage.status).toBe(502);
    expect(garbage.body.error.code).toBe('upstream_error');
    expect(await balance()).toBe(before);
    for (const res of [failed, garbage]) expect(await ledgerEntry(gw.url, key.accountId, res.headers.get('x-service-request-id') ?? '')).toBeUndefined();
  });
});
