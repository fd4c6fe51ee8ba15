import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import Koa from 'koa';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBoundary } from '../../../src/http/middleware/error-boundary.js';
import type { GatewayState } from '../../../src/http/state.js';
import { loadConfig } from '../../../src/platform/config/config.js';
import { createLogger } from '../../../src/platform/log/logger.js';
import { JobQueue } from '../../../src/queue/job-queue.js';
import type { OcrJob } from '../../../src/queue/job-types.js';
import { settleWithin } from '../../../src/queue/queue-connections.js';
import { freePort } from '../../helpers/spawn-web.js';
import { testEnv } from '../../helpers/test-gateway.js';
import { privateRedis, type PrivateRedis } from '../admission/private-redis.js';

const silent = createLogger('silent', new Writable({ write: (_c, _e, done) => done() }));

let redis: PrivateRedis;
let admin: Redis;
let jobs: JobQueue;
let server: ReturnType<Koa['listen']>;
let url: string;

const job = (requestId: string): OcrJob => ({
  requestId,
  accountId: 'acct_x',
  keyId: 'key_x',
  model: { id: 'local/reader', kind: 'ocr', provider: 'local', upstreamModel: 'reader', pricing: { page: '0.001' } },
  deadline: Date.now() + 60_000,
  op: 'recognize',
  document: { name: 'document', filename: 'document', contentType: 'application/pdf', bytes: 3, kind: 'pdf' },
});

beforeAll(async () => {
  redis = await privateRedis();
  admin = new Redis(redis.url);
  jobs = await JobQueue.open(loadConfig(testEnv({ REDIS_URL: redis.url })), silent);
  // An OCR request's route: its document is stored (a MULTI) before the job is queued.
  const app = new Koa<GatewayState>();
  app.use(errorBoundary(silent, { drainBytes: 1_024 }));
  app.use(async (ctx) => {
    await jobs.run('ocr', job(`req_${Date.now()}`), [{ name: 'document', data: Buffer.from('pdf') }], { timeoutMs: 5_000 });
    ctx.body = {};
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  server?.close();
  admin?.disconnect();
  await settleWithin(jobs?.close() ?? Promise.resolve(), 5_000);
  await redis?.stop();
});

describe('a store transaction aborted by a failover on the job path', () => {
  it('is answered 503 with Retry-After, as every store failure is, not 500', async () => {
    // A master demoted to a replica (its successor unreachable from here) refuses each write
    // of the MULTI while it is queued, and EXEC answers EXECABORT.
    await admin.replicaof('127.0.0.1', await freePort());
    const res = await fetch(url, { method: 'POST' });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('service_unavailable');
  });
});
