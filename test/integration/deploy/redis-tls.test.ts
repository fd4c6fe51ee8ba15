import { once } from 'node:events';
import { Queue, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeConnection, workerConnection } from '../../../src/queue/queue-connections.js';
import { createInvalidationBus, type Invalidation } from '../../../src/platform/redis/invalidation-bus.js';
import { createRedis, waitReady } from '../../../src/platform/redis/redis.js';
import { createLogger } from '../../../src/platform/log/logger.js';
import { spawnWeb } from '../../helpers/spawn-web.js';
import { testEnv } from '../../helpers/test-gateway.js';
import { uniqueName } from '../../setup/test-context.js';
import { privateTlsRedis, type PrivateTlsRedis } from './private-tls-redis.js';

const CERT_ERRORS = /SELF_SIGNED|UNABLE_TO_VERIFY|CERT/;

describe('rediss:// with a self-signed certificate', () => {
  let server: PrivateTlsRedis;
  beforeAll(async () => {
    server = await privateTlsRedis();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('the web client connects when verification is off', async () => {
    const redis = createRedis({ url: server.url, tlsRejectUnauthorized: false }, 'tls-test');
    redis.on('error', () => undefined);
    try {
      await waitReady(redis);
      const key = uniqueName('tls');
      await redis.set(key, 'over-tls', 'EX', 60);
      expect(await redis.get(key)).toBe('over-tls');
    } finally {
      redis.disconnect();
    }
  });

  it('the web client refuses an untrusted certificate when verification is on', async () => {
    for (const target of [server.url, { url: server.url, tlsRejectUnauthorized: true }]) {
      const redis = createRedis(target, 'tls-test-verify');
      try {
        const [err] = (await once(redis, 'error')) as [NodeJS.ErrnoException];
        expect(String(err.code ?? err.message)).toMatch(CERT_ERRORS);
        expect(redis.status).not.toBe('ready');
      } finally {
        redis.disconnect();
      }
    }
  });

  it('a BullMQ queue and worker run a job over TLS with verification off', async () => {
    const target = { url: server.url, tlsRejectUnauthorized: false };
    const name = uniqueName('tlsq');
    const queueConnection = workerConnection(target, `${name}-queue`);
    const workerConn = workerConnection(target, `${name}-worker`);
    const queue = new Queue(name, { connection: queueConnection });
    const worker = new Worker(name, async (job) => `done:${String(job.data.n)}`, { connection: workerConn });
    try {
      const completed = once(worker, 'completed');
      await queue.add('job', { n: 7 });
      const [job] = (await completed) as [{ returnvalue: string }];
      expect(job.returnvalue).toBe('done:7');
    } finally {
      await worker.close();
      await queue.close();
      await closeConnection(queueConnection);
      await closeConnection(workerConn);
    }
  });

  it('the invalidation bus subscribes over TLS', async () => {
    const target = { url: server.url, tlsRejectUnauthorized: false };
    const publisher = createRedis(target, 'tls-bus');
    publisher.on('error', () => undefined);
    await waitReady(publisher);
    const bus = createInvalidationBus(publisher, target, uniqueName('bus'), createLogger('silent'));
    try {
      const received = new Promise<Invalidation>((resolve) => bus.subscribe(resolve));
      // The subscription is asynchronous: publish until the subscriber has it.
      let event: Invalidation | undefined;
      for (let i = 0; i < 100 && !event; i += 1) {
        await bus.publish({ type: 'catalog' });
        event = await Promise.race([received, new Promise<undefined>((r) => setTimeout(() => r(undefined), 100))]);
      }
      expect(event).toEqual({ type: 'catalog' });
    } finally {
      await bus.close();
      publisher.disconnect();
    }
  });

  it('a web process is ready with REDIS_URL=rediss:// and REDIS_TLS_REJECT_UNAUTHORIZED=false', async () => {
    const web = await spawnWeb(testEnv({ REDIS_URL: server.url, REDIS_TLS_REJECT_UNAUTHORIZED: 'false' }));
    try {
      const res = await fetch(`${web.url}/readyz`);
      expect(res.status).toBe(200);
    } finally {
      await web.stop();
    }
  });

  it('a web process with verification on (the default) refuses the self-signed certificate and exits', async () => {
    await expect(spawnWeb(testEnv({ REDIS_URL: server.url }), 30_000)).rejects.toThrow(/exited early/);
  });
});
