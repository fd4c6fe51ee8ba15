import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakeOpenAiImages, type FakeOpenAiImages } from '../../fixtures/upstreams/fake-openai-images.js';
import { adminClient, call, type JsonResponse } from '../../helpers/admin-client.js';
import { spawnWorker, type WorkerProcess } from './spawn-worker.js';
import { testEnv } from '../../helpers/test-gateway.js';
import { waitFor } from '../../helpers/wait-for.js';
import { startQueueGateway, type QueueGateway } from '../../integration/queue/queue-gateway.js';

/**
 * Real worker processes are killed (SIGKILL) while a dozen image jobs run or wait; a new one
 * starts two seconds later; every other round that one is killed too once it has taken back
 * the first one's jobs. Every client must get its image, charged once. Repeated, since a
 * lost recovered job is a race that a single kill may not hit.
 */
const ROUNDS = 4;
/** Jobs one worker runs at once (the rest of a round's dozen wait behind them). */
const CONCURRENCY = 4;
const JOBS = 12;
const PRICE_NANO = 40_000_000n;

let fake: FakeOpenAiImages;
let dir: string;
let q: QueueGateway;
let env: Record<string, string>;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  fake = await startFakeOpenAiImages();
  // Slow enough that the jobs are still running when their worker is killed.
  fake.delayMs = 2_500;
  dir = await mkdtemp(join(tmpdir(), 'fbx-worker-kill-'));
  const providersFile = join(dir, 'providers.json');
  await writeFile(providersFile, JSON.stringify([
    { id: 'local', kind: 'local' },
    { id: 'img-slow', kind: 'openai-images', base_url: fake.baseUrl, api_key_env: 'FAKE_IMAGES_KEY' },
  ]));
  // A 60 s wait gives a 6 s lock, checked for stalls every 3 s (see stallSettings).
  env = testEnv({ LOG_LEVEL: 'info', PROVIDERS_FILE: providersFile, FAKE_IMAGES_KEY: 'sk-fake-images-key-000000', JOB_TIMEOUT_MS: '60000', WORKER_CONCURRENCY: String(CONCURRENCY) });
  q = await startQueueGateway({ env, workers: false });
  const res = await adminClient(q.gw.url).call('PUT', '/models/kill/image', {
    name: 'Slow image', kind: 'image', pricing: { image: '0.04' }, routes: [{ provider: 'img-slow', upstream_model: 'gpt-image-1' }],
  });
  if (res.status !== 200) throw new Error(`PUT ${res.status} ${JSON.stringify(res.body)}`);
}, 120_000);
afterAll(async () => {
  for (const w of workers) await w.stop();
  await q?.close();
  await fake?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it(`every job of a killed worker is answered and charged once (${ROUNDS} kills)`, async () => {
  const key = await q.fundedKey(100);
  workers.push(await spawnWorker(env));
  for (let round = 0; round < ROUNDS; round += 1) {
    const pending: Array<Promise<JsonResponse>> = Array.from({ length: JOBS }, (_, i) =>
      call(q.gw.url, 'POST', '/v1/images/generations', { token: key.raw, body: { model: 'kill/image', prompt: `round ${round} job ${i}`, size: '1024x1024' } }));
    // The worker has taken as many jobs as it runs at once; the rest wait behind them.
    await waitFor('the worker to be running jobs', async () => (await q.jobs.queue('images').getActiveCount()) >= CONCURRENCY);
    await workers.at(-1)?.kill();
    await sleep(2_000);
    workers.push(await spawnWorker(env));
    if (round % 2 === 1) {
      // Killed again once it has taken back the first one's jobs (a crash loop under a
      // supervisor): those jobs stall a second time and must still run.
      const replacement = workers.at(-1);
      await waitFor('the replacement to take back the stalled jobs', () => replacement?.output().includes('stalled job moved back to wait') === true, { timeoutMs: 30_000 });
      await waitFor('the replacement to be running them', async () => (await q.jobs.queue('images').getActiveCount()) > 0);
      await replacement?.kill();
      await sleep(2_000);
      workers.push(await spawnWorker(env));
    }
    const answers = await Promise.all(pending);
    const detail = () => `round ${round}: ${JSON.stringify(answers.map((a) => [a.status, a.body?.error?.code]))}\n${workers.at(-1)?.output().slice(-4000)}`;
    expect(answers.map((a) => a.status), detail()).toEqual(Array.from({ length: JOBS }, () => 200));
    for (const a of answers) {
      expect(a.body.data).toHaveLength(1);
      expect((await q.charge(a.headers.get('x-service-request-id') ?? ''))?.charged).toBe(PRICE_NANO);
    }
    // Charged once each (charges are keyed by request id), and nothing else charged.
    const charges = await q.gw.deps.c.ledger.find({ account_id: key.accountId, kind: 'charge' }).toArray();
    expect(charges).toHaveLength(JOBS * (round + 1));
    expect(charges.reduce((sum, c) => sum + c.charged, 0n)).toBe(PRICE_NANO * BigInt(JOBS * (round + 1)));
  }
}, 600_000);
