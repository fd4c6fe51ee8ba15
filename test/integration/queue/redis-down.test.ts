import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/platform/config/config.js';
import { classifyError } from '../../../src/platform/errors/classify-error.js';
import { createLogger } from '../../../src/platform/log/logger.js';
import { JobQueue } from '../../../src/queue/job-queue.js';
import { settleWithin } from '../../../src/queue/queue-connections.js';
import type { ImageGenerateJob } from '../../../src/queue/job-types.js';
import { privateRedis, type PrivateRedis } from '../admission/private-redis.js';
import { testEnv } from '../../helpers/test-gateway.js';
import { waitFor } from '../../helpers/wait-for.js';

let redis: PrivateRedis;
let jobs: JobQueue;

beforeAll(async () => {
  redis = await privateRedis();
  const config = loadConfig(testEnv({ REDIS_URL: redis.url }));
  jobs = await JobQueue.open(config, createLogger('silent', new Writable({ write: (_c, _e, done) => done() })));
});
afterAll(async () => {
  // Bounded: after a Redis restart under load, BullMQ's close can outwait the hook timeout.
  await settleWithin(jobs?.close() ?? Promise.resolve(), 10_000);
  await redis?.stop();
}, 30_000);

const job = (requestId: string): ImageGenerateJob => ({
  requestId,
  accountId: 'acct_x',
  keyId: 'key_x',
  model: { id: 'local/canvas-image', kind: 'image', provider: 'local', upstreamModel: 'canvas', pricing: { image: '0.002' } },
  deadline: Date.now() + 60_000,
  op: 'generate',
  params: { prompt: 'x', n: 1 },
});

describe('producer with Redis down', () => {
  it('fails at once with an error the web answers as 503, and works again once Redis is back', async () => {
    await redis.stop();
    // A producer that waited for the job instead of refusing would end in upstream_timeout
    // (or outlast the test), so the code alone tells failing fast from timing out.
    const failure = await jobs.run('images', job('req_down'), [], { timeoutMs: 30_000 }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(classifyError(failure).code).toBe('service_unavailable');

    await redis.start();
    await waitFor('the queue to take a job again', () => jobs.queue('images').add('generate', job('req_back'), { jobId: 'req_back' }).then(() => true, () => false), {
      timeoutMs: 5_000,
      intervalMs: 100,
    });
  });
});
