import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, call } from '../../helpers/admin-client.js';
import { testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { accountWithKey, charge, manualClock, startLimitsGateway } from './limits-fixtures.js';
import { waitFor } from '../../helpers/wait-for.js';

const clock = manualClock('2031-03-14T12:00:00.000Z');
let gw: TestGateway;

beforeAll(async () => {
  gw = await startLimitsGateway({ clock: clock.clock, env: testEnv({ LOG_LEVEL: 'warn', FREE_TIER_RPM: '3', FREE_TIER_RPD: '5' }) });
});
afterAll(async () => gw?.close());

describe('requests per minute', () => {
  it('admits exactly rpm of 50 parallel requests and gives the rest a Retry-After that a retry can trust', async () => {
    const { raw } = await accountWithKey(gw.url, 1, { limits: { rpm: 10 } });
    const results = await Promise.all(Array.from({ length: 50 }, () => charge(gw.url, raw, { cost: 1_000n, estimate: 1_000n })));
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect(ok).toHaveLength(10);
    expect(limited).toHaveLength(40);
    expect(ok.map((r) => r.headers.get('x-ratelimit-remaining')).sort()).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    const resetAt = Math.ceil((clock.now().getTime() + 60_000) / 1000);
    for (const r of limited) {
      expect(r.body.error.code).toBe('rate_limited');
      expect(r.body.error.type).toBe('rate_limit_error');
      expect(r.headers.get('retry-after')).toBe('60');
      expect(r.headers.get('x-ratelimit-limit')).toBe('10');
      expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(r.headers.get('x-ratelimit-reset')).toBe(String(resetAt));
    }
    // One second short of Retry-After the window is still full; at Retry-After there is room.
    clock.advance(59_000);
    expect((await charge(gw.url, raw, { cost: 1_000n })).status).toBe(429);
    clock.advance(1_000);
    const retry = await charge(gw.url, raw, { cost: 1_000n });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('x-ratelimit-remaining')).toBe('9');
  });

  it('reports a shorter Retry-After when the oldest requests leave the window first', async () => {
    const { raw } = await accountWithKey(gw.url, 1, { limits: { rpm: 2 } });
    expect((await charge(gw.url, raw)).status).toBe(200);
    clock.advance(20_500);
    expect((await charge(gw.url, raw)).status).toBe(200);
    clock.advance(10_000);
    const refused = await charge(gw.url, raw);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('30'); // 60 − 30.5 s, rounded up
    clock.advance(29_500);
    expect((await charge(gw.url, raw)).status).toBe(200);
  });

  it('does not limit or label keys without rpm on paid accounts, and GET /v1/key counts requests', async () => {
    const { raw } = await accountWithKey(gw.url, 1);
    const results = await Promise.all(Array.from({ length: 25 }, () => charge(gw.url, raw)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(results[0]?.headers.get('x-ratelimit-limit')).toBeNull();
    const info = await call(gw.url, 'GET', '/v1/key', { token: raw });
    expect(info.body.data.remaining.requests_this_minute).toBeNull();

    const limited = await accountWithKey(gw.url, 1, { limits: { rpm: 7 } });
    for (let i = 0; i < 3; i++) expect((await charge(gw.url, limited.raw)).status).toBe(200);
    const after = await call(gw.url, 'GET', '/v1/key', { token: limited.raw });
    expect(after.body.data.remaining.requests_this_minute).toBe(4);
  });
});

describe('free tier', () => {
  it('offers only free-tier models and lists them when refusing', async () => {
    const { raw } = await accountWithKey(gw.url, 0);
    const refused = await charge(gw.url, raw, { model: 'local/echo', cost: 1n });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('model_not_allowed');
    expect(refused.body.error.message).toContain('local/echo-free');
    expect(refused.body.error.message).toContain('meta-llama/llama-3.1-8b-instruct:free');
    expect(refused.body.error.message).not.toContain('openai/gpt-4o');
  });

  it('limits the whole account per minute and per UTC day, and needs no balance for free models', async () => {
    clock.set('2031-03-15T23:58:00.000Z');
    const { accountId, raw } = await accountWithKey(gw.url, 0);
    const second = await adminClient(gw.url).mintKey(accountId);
    const free = { model: 'local/echo-free' };
    expect((await charge(gw.url, raw, free)).status).toBe(200);
    expect((await charge(gw.url, second.raw, free)).status).toBe(200);
    const third = await charge(gw.url, raw, free);
    expect(third.status).toBe(200);
    expect(third.headers.get('x-ratelimit-limit')).toBe('3');
    expect(third.headers.get('x-ratelimit-remaining')).toBe('0');
    const perMinute = await charge(gw.url, second.raw, free);
    expect(perMinute.status).toBe(429);
    expect(perMinute.body.error.message).toContain('3 requests per minute');
    expect(perMinute.headers.get('retry-after')).toBe('60');

    clock.advance(60_000); // 23:59 UTC: the minute is over, two more fit the day
    expect((await charge(gw.url, raw, free)).status).toBe(200);
    expect((await charge(gw.url, second.raw, free)).status).toBe(200);
    const perDay = await charge(gw.url, raw, free);
    expect(perDay.status).toBe(429);
    expect(perDay.body.error.code).toBe('rate_limited');
    expect(perDay.body.error.message).toContain('5 requests per UTC day');
    expect(perDay.headers.get('retry-after')).toBe('60'); // until 00:00 UTC

    clock.advance(60_000); // 00:00 UTC next day
    expect((await charge(gw.url, raw, free)).status).toBe(200);
    const ledger = await gw.deps.c.ledger.find({ account_id: accountId, kind: 'charge' }).toArray();
    expect(ledger).toHaveLength(6);
    expect(ledger.every((e) => e.charged === 0n)).toBe(true);
  });

  it('unlocks paid models and refills the available balance as soon as the account tops up', async () => {
    const { accountId, raw } = await accountWithKey(gw.url, 0);
    const paid = { model: 'local/echo', estimate: 5_000_000n, cost: 5_000_000n };
    expect((await charge(gw.url, raw, paid)).status).toBe(403);
    await adminClient(gw.url).topup(accountId, '0.005');
    const first = await waitFor('the top-up to reach admission', async () => {
      const res = await charge(gw.url, raw, paid);
      return res.status === 403 ? undefined : res;
    }, { timeoutMs: 1_000 });
    expect(first.status).toBe(200);
    expect((await charge(gw.url, raw, paid)).status).toBe(402);
    await adminClient(gw.url).topup(accountId, '0.005');
    expect((await charge(gw.url, raw, paid)).status).toBe(200);
  });

  it('refuses models outside a key allowlist', async () => {
    const { raw } = await accountWithKey(gw.url, 1, { limits: { models: ['local/echo-free'] } });
    const refused = await charge(gw.url, raw, { model: 'local/echo' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('model_not_allowed');
    expect(refused.body.error.message).toContain('local/echo-free');
    expect((await charge(gw.url, raw, { model: 'local/echo-free' })).status).toBe(200);
  });
});
