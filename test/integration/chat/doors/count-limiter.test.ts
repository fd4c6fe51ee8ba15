import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/platform/errors/gateway-error.js';
import { CountLimiter } from '../../../../src/chat/doors/count/count-limiter.js';
import { createRedis, waitReady, type Redis } from '../../../../src/platform/redis/redis.js';
import { testRedisUrl, uniqueName } from '../../../setup/test-context.js';

let redis: Redis;
const prefix = uniqueName('count');

beforeAll(async () => {
  redis = createRedis(testRedisUrl(), prefix);
  await waitReady(redis);
});

afterAll(async () => {
  redis.disconnect();
});

describe('token counts have a per-key budget of their own', () => {
  it('refuses the count over the budget with a truthful Retry-After, per key, and opens again the next minute', async () => {
    let now = Date.UTC(2026, 10, 27, 12, 0, 45);
    const limiter = new CountLimiter(redis, prefix, 3, () => new Date(now));
    for (let i = 0; i < 3; i++) await limiter.check('key_a');
    const refused = await limiter.check('key_a').then(() => undefined, (err: unknown) => err);
    expect(refused).toBeInstanceOf(GatewayError);
    expect((refused as GatewayError).code).toBe('rate_limited');
    expect((refused as GatewayError).retryAfterSeconds).toBe(15);
    // Another key is not affected.
    await expect(limiter.check('key_b')).resolves.toBeUndefined();
    now += 15_000;
    await expect(limiter.check('key_a')).resolves.toBeUndefined();
  });

  it('lets 100 concurrent counts through no more than the budget', async () => {
    const limiter = new CountLimiter(redis, prefix, 10, () => new Date(Date.UTC(2026, 10, 27, 13, 0, 0)));
    const results = await Promise.allSettled(Array.from({ length: 100 }, () => limiter.check('key_burst')));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
  });
});
