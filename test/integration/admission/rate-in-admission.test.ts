import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type JsonResponse } from '../../helpers/admin-client.js';
import { testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { accountWithKey, manualClock, startLimitsGateway } from './limits-fixtures.js';

// Chat runs its RPM check inside the admission script; these cases hold it to the behaviour
// of a separate check ahead of everything else (DESIGN §4.4 order, each request counted once).
const clock = manualClock('2031-05-20T09:00:00.000Z');
let gw: TestGateway;

beforeAll(async () => {
  gw = await startLimitsGateway({ clock: clock.clock, env: testEnv({ LOG_LEVEL: 'warn', FREE_TIER_RPM: '3', FREE_TIER_RPD: '100' }) });
});
afterAll(async () => gw?.close());

const hello = { model: 'local/echo', messages: [{ role: 'user', content: 'hello' }], max_tokens: 8 };

function chat(raw: string, body: unknown): Promise<JsonResponse> {
  return call(gw.url, 'POST', '/v1/chat/completions', { token: raw, body });
}

/** Requests the key may still make this minute (`GET /v1/key`). */
async function remainingThisMinute(raw: string): Promise<number> {
  const info = await call(gw.url, 'GET', '/v1/key', { token: raw });
  return info.body.data.remaining.requests_this_minute as number;
}

describe('RPM checked inside admission (chat)', () => {
  it('admits exactly rpm of parallel chats, with headers on every answer', async () => {
    const { raw } = await accountWithKey(gw.url, 1, { limits: { rpm: 3 } });
    const results = await Promise.all(Array.from({ length: 8 }, () => chat(raw, hello)));
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect(ok).toHaveLength(3);
    expect(limited).toHaveLength(5);
    expect(ok.map((r) => r.headers.get('x-ratelimit-remaining')).sort()).toEqual(['0', '1', '2']);
    for (const r of limited) {
      expect(r.body.error.code).toBe('rate_limited');
      expect(r.headers.get('retry-after')).toBe('60');
      expect(r.headers.get('x-ratelimit-limit')).toBe('3');
      expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
    }
  });

  it('counts requests refused before admission and answers 429 before their own refusal', async () => {
    const { raw } = await accountWithKey(gw.url, 1, { limits: { rpm: 2 } });
    const invalid = await chat(raw, { model: 'local/echo', messages: 'not a list' });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('x-ratelimit-remaining')).toBe('1');
    const unknown = await chat(raw, { ...hello, model: 'nobody/nothing' });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('x-ratelimit-remaining')).toBe('0');
    // The window is full: every later request is a 429, whatever else is wrong with it.
    for (const body of [hello, { model: 'local/echo', messages: 'not a list' }, { ...hello, model: 'nobody/nothing' }]) {
      const res = await chat(raw, body);
      expect(res.status).toBe(429);
      expect(res.body.error.code).toBe('rate_limited');
    }
    expect(await remainingThisMinute(raw)).toBe(0);
  });

  it('counts a request once when admission re-runs (mirrors rebuilt on first use, balance re-read)', async () => {
    const { raw } = await accountWithKey(gw.url, 1, { limits: { rpm: 10, spend_cap_usd: { day: 5 } } });
    expect((await chat(raw, hello)).status).toBe(200);
    expect(await remainingThisMinute(raw)).toBe(9);

    // rpm 1: a second count of the same request on the re-run would turn the 402 into a 429.
    const poor = await accountWithKey(gw.url, '0.000001', { limits: { rpm: 1 } });
    const refused = await chat(poor.raw, { ...hello, max_tokens: 100_000 });
    expect(refused.status).toBe(402);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(await remainingThisMinute(poor.raw)).toBe(0);
  });

  it('limits a free-tier account per minute across its keys', async () => {
    const { accountId, raw } = await accountWithKey(gw.url, 0);
    const free = { ...hello, model: 'local/echo-free' };
    for (let i = 0; i < 3; i++) expect((await chat(raw, free)).status).toBe(200);
    const limited = await chat(raw, free);
    expect(limited.status).toBe(429);
    expect(limited.body.error.message).toContain('free tier');
    expect(accountId).toMatch(/^acct_/);
  });
});
