import { Redis as SingleRedis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/platform/config/index.js';
import { coalesceWrites, createRedis, waitReady } from '../../../../src/platform/redis/redis.js';
import { redisUrlOf } from '../../../../src/platform/redis/redis-tls.js';
import { countWrites } from '../../../helpers/socket-writes.js';
import { waitFor } from '../../../helpers/wait-for.js';
import { testEnv } from '../../../helpers/test-gateway.js';
import { uniqueName } from '../../../setup/test-context.js';

const target = loadConfig(testEnv()).redis;
let redis: SingleRedis;

beforeAll(async () => {
  const client = createRedis(target, 'coalesce-test');
  // A cluster client coalesces per node through the same function; the nodes are single clients.
  if (!(client instanceof SingleRedis)) throw new Error('these tests take a single Redis');
  redis = client;
  await waitReady(redis);
});
afterAll(() => redis?.disconnect());

describe('coalesced Redis writes', () => {
  it('sends the commands of one event-loop pass in one socket write, and answers each', async () => {
    const key = `{${uniqueName('co')}}:n`;
    const writes = countWrites(redis);
    try {
      const replies = await Promise.all(Array.from({ length: 25 }, () => redis.incr(key)));
      expect(replies.sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
      expect(writes.count()).toBe(1);
    } finally {
      writes.stop();
    }
  });

  it('sends commands of later passes without waiting for more', async () => {
    const key = `{${uniqueName('co')}}:seq`;
    const writes = countWrites(redis);
    try {
      for (let i = 1; i <= 5; i++) expect(await redis.incr(key)).toBe(i);
      expect(writes.count()).toBe(5);
    } finally {
      writes.stop();
    }
  });

  it('settles every command of a pass whose connection is killed, and goes on on a new one', async () => {
    const key = `{${uniqueName('co')}}:killed`;
    const victim = createRedis(target, uniqueName('victim'));
    victim.on('error', () => undefined);
    try {
      await waitReady(victim);
      const id = await (victim as SingleRedis).client('ID');
      await redis.client('KILL', 'ID', String(id));
      // Sent in one pass onto a socket Redis has closed: each must answer or fail, none hang.
      const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => victim.incr(key)));
      expect(outcomes).toHaveLength(10);
      // A web answers 503 meanwhile; once reconnected the same client writes again.
      await waitFor('the killed client to write again', () => victim.set(key, 'after'), { timeoutMs: 10_000, retryErrors: true });
      expect(await redis.get(key)).toBe('after');
    } finally {
      victim.disconnect();
    }
  });

  it('leaves a client that never coalesced writing each command at once', async () => {
    const plain = new SingleRedis(redisUrlOf(target));
    try {
      await plain.ping();
      const writes = countWrites(plain);
      await Promise.all([plain.ping(), plain.ping(), plain.ping()]);
      expect(writes.count()).toBe(3);
      coalesceWrites(plain);
      await Promise.all([plain.ping(), plain.ping(), plain.ping()]);
      expect(writes.count()).toBe(4);
      writes.stop();
    } finally {
      plain.disconnect();
    }
  });
});
