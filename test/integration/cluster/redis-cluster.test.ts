import { Worker } from 'bullmq';
import { Redis as SingleRedis, type Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/platform/config/config.js';
import { AdmissionKeys } from '../../../src/admission/admission-keys.js';
import { runScript, scriptDefinitions, type ScriptName } from '../../../src/admission/lua-commands.js';
import { SCRIPT_KEYS } from '../../../src/admission/script-keys.js';
import { createLogger } from '../../../src/platform/log/logger.js';
import { JobQueue } from '../../../src/queue/job-queue.js';
import { PayloadStore } from '../../../src/queue/payload-store.js';
import { closeConnection, workerConnection } from '../../../src/queue/queue-connections.js';
import { queuePrefix } from '../../../src/queue/queue-names.js';
import { keySlot } from '../../../src/platform/redis/key-slot.js';
import { createInvalidationBus, type Invalidation } from '../../../src/platform/redis/invalidation-bus.js';
import { createRedis, isCluster, waitReady, type Redis } from '../../../src/platform/redis/redis.js';
import { newId } from '../../../src/platform/util/ids.js';
import { countWrites } from '../../helpers/socket-writes.js';
import { waitFor } from '../../helpers/wait-for.js';
import { adminClient, call } from '../../helpers/admin-client.js';
import { startRedisCluster, type LocalRedisCluster } from '../../helpers/redis-cluster.js';
import { spawnWeb, type WebProcess } from '../../helpers/spawn-web.js';
import { startTestGateway, testEnv } from '../../helpers/test-gateway.js';
import { textPdf } from '../../fixtures/documents/test-pdfs.js';
import { spawnWorker } from '../../e2e/images/spawn-worker.js';
import { uniqueName } from '../../setup/test-context.js';

let cluster: LocalRedisCluster;
let redis: Redis;
let env: Record<string, string>;

beforeAll(async () => {
  cluster = await startRedisCluster();
  env = testEnv({ REDIS_CLUSTER_NODES: cluster.seeds, LOG_LEVEL: 'warn' });
  redis = createRedis(loadConfig(env).redis, 'cluster-test');
  redis.on('error', () => undefined);
  await waitReady(redis);
}, 60_000);
afterAll(async () => {
  redis?.disconnect();
  await cluster?.stop();
});

describe('Farebox on a Redis Cluster', () => {
  it('connects with a cluster client and runs every admission script without CROSSSLOT', async () => {
    expect(isCluster(redis)).toBe(true);
    const keys = new AdmissionKeys(env.REDIS_PREFIX as string);
    const args: Record<ScriptName, Array<string | number>> = {
      admit: [Date.now(), 'req_1', 'key_1', '', '0', '0', -1, Date.now() + 60_000, Date.now() + 60_000, 120_000, 10, 100, -1, -1, ...Array<string>(10).fill('-1'), '-', -1, -1, -1, 60_000, 0, -1],
      finish: ['req_1', '-1', '0', 60_000, Date.now(), 60_000, 5, ...Array<string>(11).fill('0'), '', 'slice_1'],
      rate: [Date.now(), 'm', 5, -1, -1, 60_000, 0, -1],
      live: [Date.now(), 'key_1', 60_000, ''],
      'load-mirror': ['100', 60_000, '0', 0, -1, 0],
      'invalidate-mirror': [60_000],
      epoch: ['run', 'gen', 0],
      place: ['req_1', '5', 'key_1', Date.now() + 60_000, -1, 120_000],
      shrink: ['slice_1', '5'],
      'apply-slice-charges': [60_000, 60_000, ...Array<string>(11).fill('1'), `req_1 5 5 ${Date.now()}  slice_1`],
    };
    expect(Object.keys(args).sort()).toEqual([...scriptDefinitions().keys()].sort());
    for (let i = 0; i < 12; i++) {
      const scope = { accountId: newId('acct'), keyId: newId('key'), requestId: newId('req'), at: new Date() };
      for (const name of Object.keys(args) as ScriptName[]) {
        await expect(runScript(redis, name, SCRIPT_KEYS[name](keys, scope), args[name]), name).resolves.toBeDefined();
      }
    }
  });

  it('sends what one pass sends to a node in one socket write', async () => {
    const key = `{${uniqueName('co')}}:n`;
    await redis.set(key, '0');
    // Nodes connect on first use: the key's own has, since it took the SET.
    const counters = (redis as Cluster).nodes('master').filter((node) => node.stream).map((node) => countWrites(node, key));
    try {
      const replies = await Promise.all(Array.from({ length: 25 }, () => redis.incr(key)));
      expect(replies.sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
      // Every node but the key's own wrote none of them; the key's own wrote them once.
      expect(counters.map((c) => c.count()).sort()).toEqual([...Array<number>(counters.length - 1).fill(0), 1]);
    } finally {
      for (const c of counters) c.stop();
    }
  });

  it('runs BullMQ jobs under hash-tagged prefixes and delivers replies over sharded pub/sub', async () => {
    const config = loadConfig(env);
    const queue = await JobQueue.open(config, createLogger('silent'), { pollMs: 60_000 });
    const connection = workerConnection(config.redis, 'cluster-test-worker');
    connection.on('error', () => undefined);
    const store = new PayloadStore(connection, config.redisPrefix);
    const worker = new Worker(
      'ocr',
      async (job) => {
        const input = await store.getInput(job.id as string, 'doc');
        const data = job.data as { replyTo: string };
        await store.putResult({ head: { id: job.id as string, queue: 'ocr' }, replyTo: data.replyTo }, { text: input?.toString() }, 60_000);
      },
      { connection, prefix: queuePrefix(config.redisPrefix, 'ocr') },
    );
    try {
      await worker.waitUntilReady();
      const requestId = newId('req');
      const result = await queue.run('ocr', { requestId, op: 'ocr' } as never, [{ name: 'doc', data: Buffer.from('hello cluster') }], { timeoutMs: 20_000 });
      expect(result).toEqual({ text: 'hello cluster' });
      await queue.discard(requestId, ['doc']);
      expect(await store.getInput(requestId, 'doc')).toBeNull();
    } finally {
      await worker.close();
      await queue.close();
      await closeConnection(connection);
    }
  });

  it('carries cache invalidations between processes over sharded pub/sub', async () => {
    // Two buses on one channel stand for two processes: the publisher's own handlers are not the path.
    const channel = uniqueName('bus');
    const listener = createInvalidationBus(redis, loadConfig(env).redis, channel, createLogger('silent'));
    const publisher = createInvalidationBus(redis, loadConfig(env).redis, channel, createLogger('silent'));
    try {
      const received = new Promise<Invalidation>((resolve) => listener.subscribe(resolve));
      let event: Invalidation | undefined;
      for (let i = 0; i < 100 && !event; i += 1) {
        await publisher.publish({ type: 'account', accountId: 'acct_x' });
        event = await Promise.race([received, new Promise<undefined>((r) => setTimeout(() => r(undefined), 100))]);
      }
      expect(event).toEqual({ type: 'account', accountId: 'acct_x' });
    } finally {
      await Promise.all([listener.close(), publisher.close()]);
    }
  });

  it('serves a web process with only REDIS_CLUSTER_NODES: chats are charged, a disabled key is refused', async () => {
    const clusterOnly = { ...env, REDIS_URL: '' };
    let web: WebProcess | undefined;
    // The in-process gateway plays the release step (indexes, catalog), on the cluster too.
    const setup = await startTestGateway({ env: clusterOnly });
    try {
      web = await spawnWeb(clusterOnly);
      const admin = adminClient(web.url);
      const accountId = await admin.createAccount();
      expect((await admin.topup(accountId, 1)).status).toBe(201);
      const { keyId, raw } = await admin.mintKey(accountId, { limits: { rpm: 100 } });
      const body = { model: 'local/echo', messages: [{ role: 'user', content: 'hi' }] };
      const res = await call(web.url, 'POST', '/v1/chat/completions', { token: raw, body });
      expect(res.status).toBe(200);
      expect(res.body.usage.cost).toBeGreaterThan(0);
      expect(res.headers.get('x-ratelimit-limit')).toBe('100');
      expect((await admin.call('PATCH', `/keys/${keyId}`, { disabled: true })).status).toBe(200);
      expect((await call(web.url, 'POST', '/v1/chat/completions', { token: raw, body })).status).toBe(401);
    } finally {
      await web?.stop();
      await setup.close();
    }
  });
});


describe('jobs through web and worker processes on the cluster', () => {
  it('generates images and reads documents, each charged once', async () => {
    const setup = await startTestGateway({ env: { ...env, REDIS_URL: '' } });
    const [web, worker] = await Promise.all([spawnWeb({ ...env, REDIS_URL: '' }), spawnWorker({ ...env, REDIS_URL: '' })]);
    try {
      const admin = adminClient(web.url);
      const accountId = await admin.createAccount();
      expect((await admin.topup(accountId, 1)).status).toBe(201);
      const { raw } = await admin.mintKey(accountId, {});
      const pdf = `data:application/pdf;base64,${(await textPdf([['Cluster manifest']])).toString('base64')}`;
      const results = await Promise.all([
        ...Array.from({ length: 4 }, (_, i) => call(web.url, 'POST', '/v1/images/generations', { token: raw, body: { model: 'local/canvas-image', prompt: `tile ${i}`, size: '64x64' } })),
        ...Array.from({ length: 2 }, () => call(web.url, 'POST', '/v1/ocr', { token: raw, body: { model: 'local/reader', document: { type: 'document_url', document_url: pdf } } })),
      ]);
      expect(results.map((r) => r.status), JSON.stringify(results.map((r) => r.body))).toEqual([200, 200, 200, 200, 200, 200]);
      const charges = await setup.deps.c.ledger.countDocuments({ account_id: accountId, kind: 'charge' });
      expect(charges).toBe(6);
    } finally {
      await Promise.all([web.stop(), worker.stop()]);
      await setup.close();
    }
  }, 90_000);
});

/** The generation recorded per shard (epoch records), by the record's key. */
async function generations(prefix: string): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  // Every node's keys (a stale view may list a demoted master); read through the cluster client.
  for (const node of (redis as Cluster).nodes('all')) {
    for (const key of await node.keys(`${prefix}:adm:epoch:*`)) found.set(key, String(await redis.hget(key, 'gen')));
  }
  return found;
}

describe('rewind detection per shard', () => {
  it('keeps every generation on a stable cluster, and starts a new one only on the shard that failed over', async () => {
    const gw = await startTestGateway({ env });
    try {
      const admin = adminClient(gw.url);
      const accountId = await admin.createAccount();
      expect((await admin.topup(accountId, 1)).status).toBe(201);
      const { raw } = await admin.mintKey(accountId, {});
      const body = { model: 'local/echo', messages: [{ role: 'user', content: 'hi' }] };
      expect((await call(gw.url, 'POST', '/v1/chat/completions', { token: raw, body })).status).toBe(200);
      const before = await generations(env.REDIS_PREFIX as string);
      expect(before.size).toBe(3);
      // Several periodic checks go by on a stable cluster.
      await new Promise((r) => setTimeout(r, 3_500));
      expect(await generations(env.REDIS_PREFIX as string)).toEqual(before);

      // The account's shard fails over: its replica takes over without the master's consent.
      const slot = keySlot(`{${accountId}}`);
      const shardKey = [...before.keys()].find((k) => ownerOf(k) === ownerOf(`{${accountId}}`));
      expect(shardKey).toBeDefined();
      const replica = await replicaOf(slot);
      await replica.cluster('FAILOVER', 'TAKEOVER');
      replica.disconnect();
      let res = await call(gw.url, 'POST', '/v1/chat/completions', { token: raw, body });
      for (let i = 0; i < 100 && res.status !== 200; i++) {
        expect(res.status).toBe(503);
        await new Promise((r) => setTimeout(r, 100));
        res = await call(gw.url, 'POST', '/v1/chat/completions', { token: raw, body });
      }
      expect(res.status).toBe(200);
      // The shard's watcher notices the new master at its next periodic check.
      const after = await waitFor('a new generation on the shard that failed over', async () => {
        const now = await generations(env.REDIS_PREFIX as string);
        return now.get(shardKey as string) !== before.get(shardKey as string) ? now : undefined;
      }, { timeoutMs: 15_000 });
      for (const [key, gen] of before) {
        if (key === shardKey) expect(after.get(key), key).not.toBe(gen);
        else expect(after.get(key), key).toBe(gen);
      }
    } finally {
      await gw.close();
    }
  }, 60_000);
});

/** The master that serves a key's slot now (host:port). */
function ownerOf(key: string): string | undefined {
  return (redis as Cluster).slots[keySlot(key)]?.[0];
}

/** A connection to a replica of the shard serving `slot` (as CLUSTER SLOTS tells). */
async function replicaOf(slot: number): Promise<SingleRedis> {
  const ranges = (await (redis as Cluster).cluster('SLOTS')) as unknown as Array<[number, number, ...Array<[string, number, string]>]>;
  const range = ranges.find(([start, end]) => start <= slot && slot <= end);
  const replica = range?.[3];
  if (!replica) throw new Error(`no replica serves slot ${slot}`);
  const client = new SingleRedis(replica[1], replica[0]);
  client.on('error', () => undefined);
  return client;
}
