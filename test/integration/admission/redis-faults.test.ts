import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../helpers/admin-client.js';
import { testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { accountWithKey, charge, startLimitsGateway, usd } from './limits-fixtures.js';
import { privateRedis, type PrivateRedis } from './private-redis.js';
import { waitFor } from '../../helpers/wait-for.js';

let redis: PrivateRedis;
let gw: TestGateway;

beforeAll(async () => {
  redis = await privateRedis();
  gw = await startLimitsGateway({ env: testEnv({ LOG_LEVEL: 'warn', REDIS_URL: redis.url }) });
});
afterAll(async () => {
  await gw?.close();
  await redis?.stop();
});

async function flushAll(): Promise<void> {
  const client = new Redis(redis.url);
  client.on('error', () => undefined);
  await client.flushall();
  client.disconnect();
}

describe('Redis trouble', () => {
  it('loses no charge and no cent when Redis is flushed in the middle of a run', async () => {
    const { accountId, raw } = await accountWithKey(gw.url, 2, { limits: { rpm: 1000, spend_cap_usd: { day: 1 } } });
    const costs = Array.from({ length: 60 }, (_, i) => usd(0.001) + BigInt(i) * 7n);
    const runs = costs.map((cost, i) => charge(gw.url, raw, { estimate: usd(0.002), cost, delay_ms: 5 + (i % 5) * 10 }));
    await new Promise((r) => setTimeout(r, 30));
    await flushAll();
    const results = await Promise.all(runs);
    const more = await Promise.all(costs.slice(0, 10).map((cost) => charge(gw.url, raw, { estimate: usd(0.002), cost })));
    const all = [...results, ...more];
    for (const r of all) expect(r.status, JSON.stringify(r.body)).toBe(200);

    const reported = all.reduce((t, r) => t + BigInt(r.body.cost as string), 0n);
    const reportedCharged = all.reduce((t, r) => t + BigInt(r.body.charged as string), 0n);
    await gw.deps.ledger.settled();
    const entries = await gw.deps.c.ledger.find({ account_id: accountId, kind: 'charge' }).toArray();
    const ledgerCharged = entries.reduce((t, e) => t + e.charged, 0n);
    const ledgerCost = entries.reduce((t, e) => t + e.cost, 0n);
    const account = await gw.deps.accounts.get(accountId);
    expect(entries).toHaveLength(all.length);
    expect(ledgerCost).toBe(reported);
    expect(ledgerCharged).toBe(reportedCharged);
    expect(ledgerCharged).toBe(reported);
    expect(account.balance).toBe(usd(2) - ledgerCharged);

    // The rebuilt mirror agrees with MongoDB once the run is over.
    const keys = gw.deps.admission.keyNames;
    await charge(gw.url, raw, { estimate: 1n, cost: 0n });
    expect(await gw.deps.redis.get(keys.balance(accountId))).toBe(account.balance.toString());
    const info = await call(gw.url, 'GET', '/v1/key', { token: raw });
    expect(BigInt(Math.round(info.body.data.usage.day_usd * 1e9))).toBe(ledgerCost);
  });

  it('answers 503 with Retry-After while Redis is down and recovers by itself', async () => {
    const { raw } = await accountWithKey(gw.url, 1);
    const { raw: unused } = await accountWithKey(gw.url, 1);
    expect((await charge(gw.url, raw, { estimate: 10n, cost: 10n })).status).toBe(200);
    await redis.stop();
    const leased = gw.config.admission.mode === 'leased';
    // Under leased admission the key that was used holds a slice, and is served from it while
    // Redis is away; a key without one gets the 503.
    if (leased) expect((await charge(gw.url, raw, { estimate: 10n, cost: 10n })).status).toBe(200);
    const down = await charge(gw.url, leased ? unused : raw, { estimate: 10n, cost: 10n });
    expect(down.status).toBe(503);
    expect(down.body.error.code).toBe('service_unavailable');
    expect(Number(down.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await call(gw.url, 'GET', '/readyz')).status).toBe(503);

    await redis.start();
    // Until Redis answers again every request gets 503, never anything else.
    await waitFor('admission to work again', async () => {
      const { status } = await charge(gw.url, raw, { estimate: 10n, cost: 10n });
      if (status !== 200) expect(status).toBe(503);
      return status === 200;
    }, { timeoutMs: 10_000, intervalMs: 100 });
  });
});
