import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, call } from '../../helpers/admin-client.js';
import { queuePrefix } from '../../../src/queue/queue-names.js';
import { spawnWeb, type WebProcess } from '../../helpers/spawn-web.js';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { spawnWorker, type WorkerProcess } from './spawn-worker.js';
import { waitFor } from '../../helpers/wait-for.js';

let setup: TestGateway;
let web: WebProcess;
const workers: WorkerProcess[] = [];
let env: Record<string, string>;
let rawKey: string;
let accountId: string;
let redis: Redis;
let queue: Queue;

beforeAll(async () => {
  // A 60 s front-door wait gives a 6 s lock: a killed worker's job is back within seconds.
  env = testEnv({ LOG_LEVEL: 'warn', JOB_TIMEOUT_MS: '60000', WORKER_CONCURRENCY: '1' });
  setup = await startTestGateway({ env });
  const admin = adminClient(setup.url);
  accountId = await admin.createAccount();
  await admin.topup(accountId, 5);
  rawKey = (await admin.mintKey(accountId)).raw;
  web = await spawnWeb(env);
  redis = new Redis(setup.config.redisUrl, { maxRetriesPerRequest: null });
  queue = new Queue('images', { connection: redis, prefix: queuePrefix(setup.config.redisPrefix, 'images') });
}, 180_000);
afterAll(async () => {
  await queue?.close();
  redis?.disconnect();
  await Promise.all([web?.stop(), ...workers.map((w) => w.stop())]);
  await setup?.close();
});

describe('a worker killed mid-job', () => {
  it('is recovered by another worker: the client gets its images and the ledger holds one charge', async () => {
    const first = await spawnWorker(env);
    workers.push(first);
    // Eight 2048x2048 renders: several seconds of work, cancellable between images.
    const pending = call(web.url, 'POST', '/v1/images/generations', {
      token: rawKey,
      body: { model: 'local/canvas-image', prompt: 'recover me '.repeat(30), n: 8, size: '2048x2048' },
    });
    await waitFor('the first worker to take the job', async () => (await queue.getActiveCount()) === 1, { timeoutMs: 60_000 });
    await first.kill();
    const second = await spawnWorker(env);
    workers.push(second);

    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(8);
    expect(res.body.usage.cost).toBe(0.016);
    const requestId = res.headers.get('x-service-request-id') ?? '';
    // The second worker found the job stalled and ran it again.
    const stalled = second.output().split('\n').find((line) => line.includes('stalled job moved back to wait'));
    expect(stalled).toContain(requestId);
    // Every charge of the account: a job charged by both workers would show up twice here.
    const charges = await setup.deps.c.ledger.find({ account_id: accountId, kind: 'charge' }).toArray();
    expect(charges.map((e) => [e._id, e.cost, e.charged])).toEqual([[requestId, 16_000_000n, 16_000_000n]]);
    // The balance lost that one charge and nothing else: $5 topped up, $0.016 spent.
    const account = await setup.deps.c.accounts.findOne({ _id: accountId });
    expect(account?.balance).toBe(5_000_000_000n - 16_000_000n);
  }, 120_000);

  it('SIGTERM lets a worker finish its running job before it exits', async () => {
    await Promise.all(workers.map((w) => w.stop()));
    const worker = await spawnWorker(env);
    workers.push(worker);
    const pending = call(web.url, 'POST', '/v1/images/generations', {
      token: rawKey,
      body: { model: 'local/canvas-image', prompt: 'finish me', n: 3, size: '2048x2048' },
    });
    await waitFor('the worker to take the job', async () => (await queue.getActiveCount()) === 1, { timeoutMs: 60_000 });
    await worker.stop();
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(3);
    expect(worker.output()).toContain('"msg":"shutting down"');
  }, 120_000);
});
