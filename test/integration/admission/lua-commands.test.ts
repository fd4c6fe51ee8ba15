import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScript } from '../../../src/admission/lua-commands.js';
import { createRedis, waitReady, type Redis } from '../../../src/platform/redis/redis.js';
import { testRedisUrl, uniqueName } from '../../setup/test-context.js';

let redis: Redis;
const prefix = uniqueName('lua');

beforeAll(async () => {
  redis = createRedis(testRedisUrl(), prefix);
  await waitReady(redis);
});
afterAll(async () => {
  const keys = await redis.keys(`*${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

describe('Lua scripts registered as commands', () => {
  it('expands includes: the live script purges an expired hold out of the account, key and end-user totals', async () => {
    const names = ['holds', 'info', 'held', 'kheld', 'klog', 'alog', 'ulog', 'tpm', 'tpminfo'].map((k) => `{${prefix}}:${k}`);
    const [holds, info, held, kheld] = names as [string, string, string, string];
    await redis.zadd(holds, 1_000, 'req_1', 10_000, 'req_2');
    await redis.hset(info, 'req_1', '500:key_1|eu1', 'req_2', '300:key_1');
    await redis.set(held, '800');
    await redis.hset(kheld, 'key_1', '800', 'key_1|eu1', '500');
    const reply = await runScript(redis, 'live', names, [2_000, 'key_1', 60_000, 'eu1']);
    // key held, key requests, account requests, account held, end-user held, requests, tokens ×3
    expect(reply).toEqual(['300', 0, 0, '300', '0', 0, '0', '0', '0']);
    expect(await redis.get(held)).toBe('300');
    expect(await redis.hget(kheld, 'key_1|eu1')).toBeNull();
    expect(await redis.zcard(holds)).toBe(1);
  });

  it('still runs after Redis dropped its script cache (SCRIPT FLUSH)', async () => {
    const [mirror, version] = [`{${prefix}}:mirror`, `{${prefix}}:version`];
    await redis.set(mirror, '7');
    expect(await runScript(redis, 'invalidate-mirror', [mirror, version], [60_000])).toBe(1);
    await redis.script('FLUSH');
    await redis.set(mirror, '8');
    expect(await runScript(redis, 'invalidate-mirror', [mirror, version], [60_000])).toBe(1);
    expect(await redis.exists(mirror)).toBe(0);
    expect(await redis.get(version)).toBe('2');
  });

  it('refuses a call with the wrong number of keys instead of shifting arguments into keys', () => {
    expect(() => runScript(redis, 'invalidate-mirror', ['only-one'], [60_000])).toThrow(/takes 2 keys/);
    expect(() => runScript(redis, 'apply-slice-charges', ['only-one'], [60_000])).toThrow(/takes 39 keys/);
  });

  it('a batch of slice charges is refused whole when any line is malformed or an argument is missing, and applies once by its marker', async () => {
    const keys = Array.from({ length: 39 }, (_, i) => `{${prefix}}:batch:${i}`);
    const marker = keys[38] as string;
    const held = keys[13] as string;
    const head = [60_000, 60_000, ...Array<string>(11).fill('0')];
    await redis.set(held, '200');
    await redis.hset(keys[12] as string, 'req_1', '100:key_1', 'req_2', '100:key_1');
    await expect(runScript(redis, 'apply-slice-charges', keys, head)).rejects.toThrow(/13 arguments, not 14/);
    // The first charge is well formed: nothing of it may be written when the second is not.
    const good = `req_1 5 5 ${Date.now()}  `;
    for (const bad of ['req_2 5 5', 'req_2 5 five 1 ', 'req_2 5 5 1 2 slice 1', 'req_2 5 5 1 x ', '5 5 1  ', ' 5 5 1  ']) {
      await expect(runScript(redis, 'apply-slice-charges', keys, [...head, `${good}\n${bad}`])).rejects.toThrow(/charge 2 has malformed figures/);
    }
    expect(await redis.exists(marker)).toBe(0);
    expect(await redis.get(held)).toBe('200');
    const batch = [...head, `${good}\nreq_2 7 7 ${Date.now()}  `];
    expect(await runScript(redis, 'apply-slice-charges', keys, batch)).toBe(2);
    expect(await redis.exists(marker)).toBe(1);
    // Both requests' own holds were dropped; the same batch again changes nothing.
    expect(await redis.get(held)).toBe('0');
    expect(await runScript(redis, 'apply-slice-charges', keys, batch)).toBe(-1);
    expect(await redis.get(held)).toBe('0');
  });
});
