import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { Queue, QueueEvents, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GatewayError } from '../../../src/platform/errors/gateway-error.js';
import { createLogger } from '../../../src/platform/log/logger.js';
import { JobAwaiter, type JobObserver } from '../../../src/queue/job-awaiter.js';
import { encodeJobError } from '../../../src/queue/job-error.js';
import { decodeReply, type JobTiming } from '../../../src/queue/job-reply.js';
import { INLINE_REPLY_BYTES, PayloadStore } from '../../../src/queue/payload-store.js';
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
    const seen: Array<{ outcome: string; timing: JobTiming }> = [];
    awaiter.observe({ jobFinished: (_q, outcome, timing) => seen.push({ outcome, timing }) } satisfies JobObserver);
    const id = uniqueName('job');
    const pending = awaiter.register('images', id);
    await queue.add('fail', {}, { jobId: id });
    const outcome = await pending.wait(10_000);
    expect(outcome.status).toBe('failed');
    if (outcome.status !== 'failed') return;
    expect([outcome.error.code, outcome.error.param, outcome.error.message]).toEqual(['invalid_request', 'size', 'bad size']);
    // The failure's timing comes from BullMQ's job hash.
    await vi.waitFor(() => expect(seen).toHaveLength(1));
    expect(seen[0]?.outcome).toBe('failed');
    expect(seen[0]?.timing.finishedAt).toBeGreaterThanOrEqual(seen[0]?.timing.startedAt ?? Infinity);
  });

  it('answers 503 with Retry-After for a job the queue lost (Redis failed over without it)', async () => {
    const awaiter = new JobAwaiter({ images: queue, ocr: queue }, { images: deafEvents(), ocr: deafEvents() }, store, log, 50);
    await worker.pause();
    const id = uniqueName('job');
    const pending = awaiter.register('images', id);
    await queue.add('generate', {}, { jobId: id });
    // What a promoted replica that never saw the job shows: no job, no result.
    await queue.remove(id);
    const outcome = await pending.wait(10_000);
    expect(outcome.status).toBe('failed');
    if (outcome.status !== 'failed') return;
    expect([outcome.error.code, outcome.error.status, outcome.error.retryAfterSeconds]).toEqual(['service_unavailable', 503, 1]);
    worker.resume();
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

describe('published replies', () => {
  let subscriber: Redis;

  beforeAll(async () => {
    subscriber = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
  });
  afterAll(() => subscriber?.disconnect());

  /** An awaiter that hears only the reply channel: no events, and a poll too slow to matter. */
  async function replyOnlyAwaiter(): Promise<{ awaiter: JobAwaiter; replyTo: string; seen: JobTiming[] }> {
    const awaiter = new JobAwaiter({ images: queue, ocr: queue }, { images: deafEvents(), ocr: deafEvents() }, store, log, 60_000);
    const seen: JobTiming[] = [];
    awaiter.observe({ jobFinished: (_q, _o, timing) => seen.push(timing) });
    const replyTo = store.replyChannel(uniqueName('web'));
    subscriber.on('message', (ch: string, message: string) => {
      const reply = decodeReply(message);
      if (ch === replyTo && reply) awaiter.deliver(reply);
    });
    await subscriber.subscribe(replyTo);
    return { awaiter, replyTo, seen };
  }

  it('settles a wait from the reply alone, with the result inside and its timing', async () => {
    const { awaiter, replyTo, seen } = await replyOnlyAwaiter();
    const id = uniqueName('job');
    const pending = awaiter.register('images', id);
    const timing = { queuedAt: 1_000, startedAt: 1_250, finishedAt: 1_300 };
    expect(await store.putResult({ head: { queue: 'images', id, timing }, replyTo }, { images: ['x'] }, 60_000)).toBe(true);
    expect(await pending.wait(5_000)).toEqual({ status: 'completed', result: { images: ['x'] } });
    expect(seen).toEqual([timing]);
  });

  it('reads a result too large to publish from the store, its base64 as bytes for images and as text for OCR', async () => {
    const { awaiter, replyTo } = await replyOnlyAwaiter();
    const big = 'a'.repeat(INLINE_REPLY_BYTES + 1);
    const image = uniqueName('job');
    const pendingImage = awaiter.register('images', image);
    await store.putResult({ head: { queue: 'images', id: image }, replyTo }, { big }, 60_000);
    expect(await pendingImage.wait(5_000)).toEqual({ status: 'completed', result: { big: Buffer.from(big) } });
    const ocr = uniqueName('job');
    const pendingOcr = awaiter.register('ocr', ocr);
    await store.putResult({ head: { queue: 'ocr', id: ocr }, replyTo }, { big }, 60_000);
    expect(await pendingOcr.wait(5_000)).toEqual({ status: 'completed', result: { big } });
  });

  it('reads a large result with text that is not base64 from the store', async () => {
    const { awaiter, replyTo } = await replyOnlyAwaiter();
    const id = uniqueName('job');
    const pending = awaiter.register('images', id);
    const b64 = 'QUJD'.repeat(INLINE_REPLY_BYTES / 4 + 1);
    const note = `"${'é'.repeat(INLINE_REPLY_BYTES)}"\n`;
    await store.putResult({ head: { queue: 'images', id }, replyTo }, { images: [{ b64_json: b64 }], note }, 60_000);
    expect(await pending.wait(5_000)).toEqual({ status: 'completed', result: { images: [{ b64_json: Buffer.from(b64) }], note } });
  });

  it('settles a wait with the GatewayError of a failure reply', async () => {
    const { awaiter, replyTo, seen } = await replyOnlyAwaiter();
    const id = uniqueName('job');
    const pending = awaiter.register('images', id);
    const reason = encodeJobError(new GatewayError('invalid_request', 'bad prompt', { param: 'prompt' }));
    await store.publishFailure({ head: { queue: 'images', id, timing: { queuedAt: 1, startedAt: 2, finishedAt: 3 } }, replyTo }, reason);
    const outcome = await pending.wait(5_000);
    expect(outcome.status).toBe('failed');
    if (outcome.status !== 'failed') return;
    expect([outcome.error.code, outcome.error.param]).toEqual(['invalid_request', 'prompt']);
    expect(seen).toHaveLength(1);
  });

  it('keeps nothing for a request the web cancelled', async () => {
    const replyTo = store.replyChannel(uniqueName('web'));
    const id = uniqueName('job');
    await store.markCancelled(id, 60_000);
    expect(await store.putResult({ head: { queue: 'images', id }, replyTo }, { late: true }, 60_000)).toBe(false);
    expect(await store.getResult(id)).toBeUndefined();
  });
});
