import { randomUUID } from 'node:crypto';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { queuePrefix } from '../../../src/queue/queue-names.js';
import { MAX_STALLS, startWorkers, stallSettings, type RunningWorkers } from '../../../workers/start-workers.js';
import { call, type JsonResponse } from '../../helpers/admin-client.js';
import { waitFor } from '../../helpers/wait-for.js';
import { startQueueGateway, type QueueGateway } from './queue-gateway.js';

/**
 * A supervisor restarts a killed worker within seconds, and a worker killed again soon after
 * (a crash loop, or a second kill under load) drops the jobs it had recovered from the first
 * one. Those jobs stall a second time; they must still run and be answered, not be failed by
 * the queue as "stalled more than allowable limit".
 */
const JOB_TIMEOUT_MS = 40_000;
const JOBS = 2;
/** The price of one local canvas image, in nano-dollars. */
const IMAGE_NANO = 2_000_000n;

let q: QueueGateway;
let redis: Redis;
let workers: RunningWorkers | undefined;

beforeAll(async () => {
  q = await startQueueGateway({ env: { JOB_TIMEOUT_MS: String(JOB_TIMEOUT_MS), WORKER_CONCURRENCY: '2' }, workers: false });
  redis = new Redis(q.gw.config.redisUrl, { maxRetriesPerRequest: null });
});
afterAll(async () => {
  await workers?.close();
  redis?.disconnect();
  await q?.close();
});

/** A worker that fetches like the real one (same prefix and lock timing) but runs nothing. */
function bareWorker(): Worker {
  const connection = redis.duplicate();
  return new Worker('images', undefined, {
    connection,
    prefix: queuePrefix(q.gw.config.redisPrefix, 'images'),
    autorun: false,
    maxStalledCount: MAX_STALLS,
    ...stallSettings(JOB_TIMEOUT_MS),
  });
}

/** Takes every waiting job under a lock, then dies without releasing or renewing any lock. */
async function takeAndDie(): Promise<number> {
  const doomed = bareWorker();
  let taken = 0;
  while ((await doomed.getNextJob(randomUUID(), { block: false })) !== undefined) taken += 1;
  await doomed.close(true);
  return taken;
}

/** Runs the stall check (as a live worker's would) until the dead worker's jobs are back in wait. */
async function recover(): Promise<void> {
  const checker = bareWorker();
  await checker.startStalledCheckTimer();
  try {
    await waitFor('the stalled jobs to be back in wait', async () => (await q.jobs.queue('images').getWaitingCount()) === JOBS, { timeoutMs: 30_000 });
  } finally {
    await checker.close(true);
  }
}

it('jobs whose worker is killed twice in a row are still answered and charged once', async () => {
  const key = await q.fundedKey(10);
  const pending: Array<Promise<JsonResponse>> = Array.from({ length: JOBS }, (_, i) =>
    call(q.gw.url, 'POST', '/v1/images/generations', { token: key.raw, body: { model: 'local/canvas-image', prompt: `stall twice ${i}`, size: '64x64' } }));
  await waitFor('the jobs to be queued', async () => (await q.jobs.queue('images').getWaitingCount()) === JOBS);
  expect(await takeAndDie()).toBe(JOBS);
  await recover();
  expect(await takeAndDie()).toBe(JOBS);
  // A live worker finds them stalled again and runs them.
  workers = await startWorkers(q.gw.deps);
  const answers = await Promise.all(pending);
  expect(answers.map((a) => [a.status, a.body?.error?.message])).toEqual(Array.from({ length: JOBS }, () => [200, undefined]));
  for (const a of answers) {
    expect(a.body.data).toHaveLength(1);
    expect((await q.charge(a.headers.get('x-service-request-id') ?? ''))?.cost).toBe(IMAGE_NANO);
  }
  const charges = await q.gw.deps.c.ledger.find({ account_id: key.accountId, kind: 'charge' }).toArray();
  expect(charges).toHaveLength(JOBS);
}, 90_000);
