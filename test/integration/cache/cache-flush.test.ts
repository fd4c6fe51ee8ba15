import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { waitFor } from '../../helpers/wait-for.js';
import { privateRedis, type PrivateRedis } from '../admission/private-redis.js';
import { fundedKey } from '../chat/chat-client.js';
import { entryCount, idOf, ledgerOf, nano, post } from './cache-client.js';

let redis: PrivateRedis;
let gw: TestGateway;

beforeAll(async () => {
  redis = await privateRedis();
  gw = await startTestGateway({ env: testEnv({ LOG_LEVEL: 'warn', REDIS_URL: redis.url, CACHE_MAX_BYTES: '6000' }) });
}, 60_000);
afterAll(async () => {
  await gw?.close();
  await redis?.stop();
});

describe('the cache is only Redis', () => {
  it('loses its entries on FLUSHALL and nothing else: balance, key and ledger stay right', async () => {
    const { accountId, raw } = await fundedKey(gw.url, 1);
    const body = { model: 'local/echo', messages: [{ role: 'user', content: 'flush me' }] };
    const miss = await post(gw.url, '/v1/chat/completions', raw, body);
    expect(miss.headers.get('x-farebox-cache')).toBe('miss');
    const hit = await waitFor('a hit', async () => {
      const res = await post(gw.url, '/v1/chat/completions', raw, body);
      return res.headers.get('x-farebox-cache') === 'hit' ? res : undefined;
    }, { timeoutMs: 3_000 });
    // local/echo has no cache_hit price: hits are free, and still in the ledger.
    expect(hit.body.usage.cost).toBe(0);
    expect((await ledgerOf(gw, idOf(hit))).cost_details?.[0]?.component).toBe('cache_hit');

    const client = new Redis(redis.url);
    await client.flushall();
    client.disconnect();

    const after = await post(gw.url, '/v1/chat/completions', raw, body);
    expect(after.status).toBe(200);
    expect(after.headers.get('x-farebox-cache')).toBe('miss');
    expect(nano(after.body.usage.cost)).toBe(nano(miss.body.usage.cost));
    await gw.deps.ledger.settled();
    const charges = await gw.deps.c.ledger.find({ account_id: accountId, kind: 'charge' }).toArray();
    expect(charges.length).toBeGreaterThanOrEqual(3);
    const charged = charges.reduce((t, e) => t + e.charged, 0n);
    expect(charged).toBe(2n * nano(miss.body.usage.cost));
    expect((await gw.deps.accounts.get(accountId)).balance).toBe(1_000_000_000n - charged);
  });

  it('keeps within CACHE_MAX_BYTES by evicting the oldest entries first', async () => {
    const { raw } = await fundedKey(gw.url, 1);
    const ask = (i: number) => post(gw.url, '/v1/chat/completions', raw, { model: 'local/echo', messages: [{ role: 'user', content: `entry number ${i}` }] });
    for (let i = 0; i < 8; i++) {
      expect((await ask(i)).headers.get('x-farebox-cache')).toBe('miss');
      await new Promise((r) => setTimeout(r, 30));
    }
    const tag = `${gw.config.redisPrefix}:cache:{${gw.config.redisPrefix}:cache}`;
    await waitFor('the last entry', async () => (await gw.deps.redis.zcard(`${tag}:age`)) > 0, { timeoutMs: 2_000 });
    const bytes = Number(await gw.deps.redis.get(`${tag}:bytes`));
    expect(bytes).toBeLessThanOrEqual(6000);
    expect(await entryCount(gw)).toBeLessThan(8);
    // The newest answer is still there, the oldest is gone.
    expect((await ask(7)).headers.get('x-farebox-cache')).toBe('hit');
    expect((await ask(0)).headers.get('x-farebox-cache')).toBe('miss');
    const evictions = await gw.deps.metrics.registry.getSingleMetric('farebox_cache_evictions_total')?.get();
    expect(evictions?.values[0]?.value ?? 0).toBeGreaterThan(0);
  });
});
