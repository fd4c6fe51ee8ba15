import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAi, type FakeUpstream } from '../../../fixtures/upstreams/fake-openai.js';
import { adminClient } from '../../../helpers/admin-client.js';
import { startTestGateway, testEnv, type TestGateway } from '../../../helpers/test-gateway.js';
import { chat, fundedKey, streamChat } from '../../chat/chat-client.js';
import { adminText, waitRecord } from './records-client.js';

const OPENAI_KEY = 'sk-fake-openai-upstream-key-records';
let openai: FakeUpstream;
let dir: string;
let gw: TestGateway;

beforeAll(async () => {
  openai = await startFakeOpenAi({ apiKey: OPENAI_KEY });
  dir = await mkdtemp(join(tmpdir(), 'fbx-records-'));
  const providersFile = join(dir, 'providers.json');
  await writeFile(providersFile, JSON.stringify([{ id: 'local', kind: 'local' }, { id: 'fake-openai', kind: 'openai', base_url: `${openai.url}/v1`, api_key_env: 'FAKE_OPENAI_KEY' }]));
  gw = await startTestGateway({ env: testEnv({ LOG_LEVEL: 'warn', PROVIDERS_FILE: providersFile, FAKE_OPENAI_KEY: OPENAI_KEY }) });
  const res = await adminClient(gw.url).call('PUT', '/models/fake/gpt', {
    name: 'gpt', kind: 'chat', provider: 'fake-openai', upstream_model: 'gpt-4o-mini', pricing: { prompt: '0.000001', completion: '0.000002' }, capabilities: [], context_length: 100_000,
  });
  if (res.status !== 200) throw new Error(`PUT model ${res.status}`);
});
afterAll(async () => {
  await gw?.close();
  await openai?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('upstream outcomes', () => {
  it('an upstream failure is recorded with its provider and counted by provider and code', async () => {
    const key = await fundedKey(gw.url, 1);
    const ok = await chat(gw.url, key.raw, { model: 'fake/gpt', messages: [{ role: 'user', content: 'hi' }] });
    expect(ok.status).toBe(200);
    openai.setScenario({ type: 'error', status: 500, body: '{"error":{"message":"The server had an error"}}' });
    const failed = await chat(gw.url, key.raw, { model: 'fake/gpt', messages: [{ role: 'user', content: 'hi' }] });
    expect(failed.status).toBe(502);
    const record = await waitRecord(gw.url, failed.headers.get('x-service-request-id') ?? '');
    expect(record).toMatchObject({ model: 'fake/gpt', provider: 'fake-openai', status: 502, error_code: 'upstream_error', cost_usd: 0 });
    const { text } = await adminText(gw.url, '/metrics');
    expect(text).toMatch(/farebox_upstream_errors_total\{provider="fake-openai",code="upstream_error"\} 1/);
    expect(text).toMatch(/farebox_requests_total\{endpoint="\/v1\/chat\/completions",model="fake\/gpt",provider="fake-openai",status="200"\} 1/);
    expect(text).toMatch(/farebox_spend_usd_total\{model="fake\/gpt",provider="fake-openai"\} 0\.0/);
    expect(text).not.toContain(OPENAI_KEY);
  });
});

describe('a stream that fails after it started', () => {
  it('is recorded with status 200, the failure code and what was billed', async () => {
    const key = await fundedKey(gw.url, 1);
    openai.setScenario({ type: 'stream-error', afterFrames: 2 });
    const res = await streamChat(gw.url, key.raw, { model: 'fake/gpt', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(200);
    expect(res.events.some((e) => e.error?.code === 'upstream_error')).toBe(true);
    const record = await waitRecord(gw.url, res.headers.get('x-service-request-id') ?? '');
    expect(record).toMatchObject({ model: 'fake/gpt', provider: 'fake-openai', stream: true, status: 200, error_code: 'upstream_error' });
    expect(record.cost_usd).toBeGreaterThan(0);
    const { text } = await adminText(gw.url, '/metrics');
    expect(text).toMatch(/farebox_upstream_errors_total\{provider="fake-openai",code="upstream_error"\} 2/);
  });
});
