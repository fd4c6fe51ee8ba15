import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { Queue, QueueEvents, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { createLogger } from '../../../src/log/logger.js';
import { JobAwaiter } from '../../../src/queue/job-awaiter.js';
import { encodeJobError } from '../../../src/queue/job-error.js';
import { PayloadStore } from '../../../src/queue/payload-store.js';
import { testRedisUrl, uniqueName } from '../../setup/test-context.js';

const log = createLogger('silent', new Writable({ write: (_c, _e, done) => done() }));
const prefix = uniqueName('awaiter');
let redis: Redis;
let queue: Queue;
let store: PayloadStore;
let worker: Worker;

beforeAll(async () => {
  redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
  queue = new Queue('images', { connection: redis, prefix });
  store = new PayloadStore(redis, prefix);
  // A worker that stores its output like the real processors, or fails for good on request.
  worker = new Worker(
    'images',
    async (job) => {
      if (job.name === 'fail') throw new UnrecoverableError(encodeJobError(new GatewayError('invalid_request', 'bad size', { param: 'size' })));
      await store.putResult({ head: { queue: 'images', id: job.id ?? '' } }, { echo: job.data }, 60_000);
      return { cost: '0', units: {} };
    },
    { connection: redis.duplicate(), prefix, autorun: false },
  );
}, 60_000);
afterAll(async () => {
  await worker?.close();
  await queue?.close();
  redis?.disconnect();
});

/** QueueEvents that never deliver anything: only the state poll can see completions. */
const deafEvents = (): QueueEvents => new EventEmitter() as unknown as QueueEvents;

describe('JobAwaiter backstop', () => {
  it('sees a completion whose event never arrives, by polling the stored result', async () => {
    const awaiter = new JobAwaiter({ images: queue, ocr: queue }, { images: deafEvents(), ocr: deafEvents() }, store, log, 50);
    const id = uniqueName('job');
    const pending = awaiter.register('images', id);
    await queue.add('generate', { n: 1 }, { jobId: id, removeOnComplete: true });
    void worker.run();
    const outcome = await pending.wait(10_000);
    expect(outcome).toEqual({ status: 'completed', result: { echo: { n: 1 } } });
  });

  it('sees a failure whose event never arrives, with the worker GatewayError intact', async () => {
    const awaiter = new JobAwaiter({ images: queue, ocr: queue }, { images: deafEvents(), ocr: deafEvents() }, store, log, 50);
    const id = uniqueName('job');
    const pending = awaiter.register('images', id);
    await queue.add('fail', {}, { jobId: id });
    const outcome = await pending.wait(10_000);
    expect(outcome.status).toBe('failed');
    if (outcome.status !== 'failed') return;
    expect([outcome.error.code, outcome.error.param, outcome.error.message]).toEqual(['invalid_request', 'size', 'bad size']);
  });

  it('times out with 504 while nothing finishes', async () => {
    const awaiter = new JobAwaiter({ images: queue, ocr: queue }, { images: deafEvents(), ocr: deafEvents() }, store, log, 50);
    await worker.pause();
    const id = uniqueName('job');
    const pending = awaiter.register('images', id);
    await queue.add('generate', {}, { jobId: id });
    await expect(pending.wait(300)).rejects.toMatchObject({ code: 'upstream_timeout' });
    await queue.remove(id);
    worker.resume();
  });
});
