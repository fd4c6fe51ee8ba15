import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakeOpenAiImages, type FakeOpenAiImages } from '../../fixtures/upstreams/fake-openai-images.js';
import { adminClient, call } from '../../helpers/admin-client.js';
import { startQueueGateway, type QueueGateway } from '../queue/queue-gateway.js';
import { attemptsOf } from './routes-gateway.js';

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
  // Three failures in a row open a route's breaker, for longer than the file runs.
  const env = { PROVIDERS_FILE: providersFile, FAKE_IMAGES_KEY: 'sk-fake-images-key-000000', ROUTE_BREAKER_FAILURES: String(BREAKER_FAILURES), ROUTE_BREAKER_COOLDOWN_MS: '600000' };
  q = await startQueueGateway({ env });
  key = await q.fundedKey();
  for (const id of ['route/image', 'route/image-breaker']) {
    const res = await adminClient(q.gw.url).call('PUT', `/models/${id}`, {
      name: 'Routed image', kind: 'image', pricing: { image: '0.01' },
      routes: [{ provider: 'img-a', upstream_model: 'gpt-image-1' }, { provider: 'local', upstream_model: 'canvas', pricing: { image: '0.002' } }],
    });
    if (res.status !== 200) throw new Error(`PUT ${res.status} ${JSON.stringify(res.body)}`);
  }
}, 60_000);
afterAll(async () => {
  await q?.close();
  await fake?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const BREAKER_FAILURES = 3;
const generate = (model = 'route/image') => call(q.gw.url, 'POST', '/v1/images/generations', { token: key.raw, body: { model, prompt: 'a kite', size: '64x64' } });

/** The stored record of a request, once written. */
async function recordOf(requestId: string): Promise<Record<string, any>> {
  await q.gw.deps.requests.drain();
  const res = await adminClient(q.gw.url).call('GET', `/requests/${requestId}`);
  if (res.status !== 200) throw new Error(`record ${requestId}: ${res.status}`);
  return res.body.data as Record<string, any>;
}

it('an image job whose first route answers 500 is served by the next, charged at that route only', async () => {
  fake.scenario = 'server_error';
  const before = fake.requests.length;
  const res = await generate();
  expect(res.status).toBe(200);
  // A quick 500 is tried once more on its route before the next.
  expect(fake.requests.length).toBe(before + 2);
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

it('an image job records every route it tried, as a chat request does, and names the route that answered', async () => {
  fake.scenario = 'server_error';
  const res = await generate('route/image-breaker');
  expect(res.status).toBe(200);
  const record = await recordOf(res.headers.get('x-service-request-id') ?? '');
  expect(record).toMatchObject({ status: 200, model: 'route/image-breaker', provider: 'local' });
  expect(attemptsOf(record)).toEqual([['img-a', 'failed', 'status_500', 500], ['img-a', 'failed', 'status_500', 500], ['local', 'answered', null, null]]);
});

it("a route that keeps failing opens the worker's breaker: later jobs skip it without a call, and their records say why", async () => {
  fake.scenario = 'server_error';
  // The test above failed twice on this route (a try and its retry); one more opens the breaker.
  expect((await generate('route/image-breaker')).status).toBe(200);
  expect(q.workers?.routeHealth.view('route/image-breaker@img-a/gpt-image-1').state).toBe('open');
  fake.scenario = 'ok';
  const before = fake.requests.length;
  const res = await generate('route/image-breaker');
  expect(res.status).toBe(200);
  expect(fake.requests.length).toBe(before);
  expect(res.body.usage).toMatchObject({ cost: 0.002, images: 1 });
  const record = await recordOf(res.headers.get('x-service-request-id') ?? '');
  expect(attemptsOf(record)).toEqual([['img-a', 'skipped', 'circuit_open', null], ['local', 'answered', null, null]]);
  // Another model's routes have their own breaker: the healthy upstream still answers there.
  expect((await generate()).body.usage.cost).toBe(0.01);
});

it("a job that fails records the routes it tried too: the worker's failure carries them to the web", async () => {
  fake.scenario = 'bad_request';
  const res = await generate();
  expect(res.status).toBe(400);
  const record = await recordOf(res.headers.get('x-service-request-id') ?? '');
  expect(record).toMatchObject({ status: 400, model: 'route/image' });
  expect(attemptsOf(record)).toEqual([['img-a', 'failed', 'status_400', 400]]);
});
