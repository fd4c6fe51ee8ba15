import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/platform/config/config.js';
import { createLogger } from '../../../src/platform/log/logger.js';
import { Metrics } from '../../../src/metrics/metrics.js';
import { COUNTS_TIMEOUT_MS } from '../../../src/metrics/queue-metrics.js';
import { JobQueue } from '../../../src/queue/job-queue.js';
import { settleWithin } from '../../../src/queue/queue-connections.js';
import { call } from '../../helpers/admin-client.js';
import { TEST_ADMIN_TOKEN, testEnv } from '../../helpers/test-gateway.js';
import { spawnWorker, type WorkerProcess } from '../../e2e/images/spawn-worker.js';
import { privateRedis, type PrivateRedis } from '../admission/private-redis.js';
import { startQueueGateway, type QueueGateway } from './queue-gateway.js';
import { waitFor } from '../../helpers/wait-for.js';

/** One sample of the Prometheus text, or undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('queue metrics on /metrics, with a worker in its own process', () => {
  let q: QueueGateway;
  let worker: WorkerProcess | undefined;
  let env: Record<string, string>;
  let key: { raw: string };

  beforeAll(async () => {
    env = testEnv({ LOG_LEVEL: 'warn', WORKER_CONCURRENCY: '2' });
    q = await startQueueGateway({ env, workers: false });
    key = await q.fundedKey();
  }, 120_000);
  afterAll(async () => {
    await worker?.stop();
    await q?.close();
  });

  const scrape = async (): Promise<string> => {
    const res = await fetch(`${q.gw.url}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    expect(res.status).toBe(200);
    return res.text();
  };

  it('shows jobs waiting while no worker runs, drained once one does, and their timings', async () => {
    const before = await scrape();
    expect(sample(before, 'farebox_queue_jobs{queue="images",state="waiting"}')).toBe(0);
    expect(sample(before, 'farebox_queue_jobs{queue="ocr",state="active"}')).toBe(0);
    expect(sample(before, 'farebox_job_duration_seconds_count{queue="images",outcome="completed"}')).toBeUndefined();

    const requests = Array.from({ length: 3 }, () =>
      call(q.gw.url, 'POST', '/v1/images/generations', { token: key.raw, body: { model: 'local/instant-image', prompt: 'queued', size: '64x64' } }),
    );
    await waitFor('three jobs waiting', async () => sample(await scrape(), 'farebox_queue_jobs{queue="images",state="waiting"}') === 3);

    worker = await spawnWorker(env);
    const answers = await Promise.all(requests);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);

    await waitFor('the queue drained', async () => {
      const text = await scrape();
      return (
        sample(text, 'farebox_queue_jobs{queue="images",state="waiting"}') === 0 &&
        sample(text, 'farebox_queue_jobs{queue="images",state="active"}') === 0
      );
    });
    const after = await scrape();
    expect(sample(after, 'farebox_job_duration_seconds_count{queue="images",outcome="completed"}')).toBe(3);
    expect(sample(after, 'farebox_job_wait_seconds_count{queue="images"}')).toBe(3);
    // They waited at least as long as the worker took to start (well over 100 ms in all).
    expect(sample(after, 'farebox_job_wait_seconds_sum{queue="images"}')).toBeGreaterThan(0.1);
    expect(sample(after, 'farebox_job_wait_seconds_bucket{le="+Inf",queue="images"}')).toBe(3);
    expect(sample(after, 'farebox_queue_jobs{queue="images",state="failed"}')).toBe(0);
  }, 120_000);
});

describe('queue depth while Redis is down', () => {
  let redis: PrivateRedis;
  let jobs: JobQueue;
  const metrics = new Metrics();

  beforeAll(async () => {
    redis = await privateRedis();
    const config = loadConfig(testEnv({ REDIS_URL: redis.url }));
    jobs = await JobQueue.open(config, createLogger('silent', new Writable({ write: (_c, _e, done) => done() })));
    jobs.instrument(metrics.queue);
  }, 60_000);
  afterAll(async () => {
    metrics.eventLoop.stop();
    await settleWithin(jobs?.close() ?? Promise.resolve(), 10_000);
    await redis?.stop();
  }, 30_000);

  it('keeps the scrape answering with the last counts, then reads live counts again', async () => {
    await jobs.queue('images').add('generate', { n: 1 }, { jobId: 'waiting-1' });
    const live = (await metrics.render()).body;
    expect(sample(live, 'farebox_queue_jobs{queue="images",state="waiting"}')).toBe(1);

    await redis.stop();
    await new Promise((r) => setTimeout(r, 1_100));
    const started = performance.now();
    const down = (await metrics.render()).body;
    expect(performance.now() - started).toBeLessThan(COUNTS_TIMEOUT_MS + 1_000);
    expect(sample(down, 'farebox_queue_jobs{queue="images",state="waiting"}')).toBe(1);
    expect(down).toContain('farebox_http_requests_total');

    await redis.start();
    await waitFor('counts read from the restarted (empty) Redis', async () => {
      const text = (await metrics.render()).body;
      return sample(text, 'farebox_queue_jobs{queue="images",state="waiting"}') === 0;
    });
  }, 60_000);
});
