import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakeOpenAiImages, type FakeOpenAiImages } from '../../fixtures/upstreams/fake-openai-images.js';
import { adminClient, call } from '../../helpers/admin-client.js';
import { startQueueGateway, type QueueGateway } from '../queue/queue-gateway.js';

let fake: FakeOpenAiImages;
let dir: string;
let q: QueueGateway;
let key: { accountId: string; raw: string };

beforeAll(async () => {
  fake = await startFakeOpenAiImages();
  dir = await mkdtemp(join(tmpdir(), 'fbx-job-routes-'));
  const providersFile = join(dir, 'providers.json');
  await writeFile(providersFile, JSON.stringify([
    { id: 'local', kind: 'local' },
    { id: 'img-a', kind: 'openai-images', base_url: `${fake.baseUrl}/v1`, api_key_env: 'FAKE_IMAGES_KEY' },
  ]));
  q = await startQueueGateway({ env: { PROVIDERS_FILE: providersFile, FAKE_IMAGES_KEY: 'sk-fake-images-key-000000' } });
  key = await q.fundedKey();
  const res = await adminClient(q.gw.url).call('PUT', '/models/route/image', {
    name: 'Routed image', kind: 'image', pricing: { image: '0.01' },
    routes: [{ provider: 'img-a', upstream_model: 'gpt-image-1' }, { provider: 'local', upstream_model: 'canvas', pricing: { image: '0.002' } }],
  });
  if (res.status !== 200) throw new Error(`PUT ${res.status} ${JSON.stringify(res.body)}`);
}, 60_000);
afterAll(async () => {
  await q?.close();
  await fake?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const generate = () => call(q.gw.url, 'POST', '/v1/images/generations', { token: key.raw, body: { model: 'route/image', prompt: 'a kite', size: '64x64' } });

it('an image job whose first route answers 500 is served by the next, charged at that route only', async () => {
  fake.scenario = 'server_error';
  const before = fake.requests.length;
  const res = await generate();
  expect(res.status).toBe(200);
  expect(fake.requests.length).toBeGreaterThan(before);
  expect(res.body.usage).toMatchObject({ cost: 0.002, images: 1 });
  const charge = await q.charge(res.headers.get('x-service-request-id') ?? '');
  expect(charge?.cost).toBe(2_000_000n);
});

it('the first route answers when healthy, at its own price', async () => {
  fake.scenario = 'ok';
  const res = await generate();
  expect(res.status).toBe(200);
  expect(res.body.usage.cost).toBe(0.01);
});

it('a 400 from the first route is the answer: not retried elsewhere, nothing charged', async () => {
  fake.scenario = 'bad_request';
  const res = await generate();
  expect(res.status).toBe(400);
  expect(await q.charge(res.headers.get('x-service-request-id') ?? '')).toBeNull();
});
