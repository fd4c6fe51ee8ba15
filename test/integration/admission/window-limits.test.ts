import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, call, type JsonResponse } from '../../helpers/admin-client.js';
import type { TestGateway } from '../../helpers/test-gateway.js';
import { ledgerFigures } from '../faults/money-invariants.js';
import { accountWithKey, charge, manualClock, startLimitsGateway, usd } from './limits-fixtures.js';

// Sunday 23:50 UTC: the next ISO week (and day) starts ten minutes later; the month does not.
const clock = manualClock('2031-02-02T23:50:00.000Z');
let gw: TestGateway;

beforeAll(async () => {
  gw = await startLimitsGateway({ clock: clock.clock });
});
afterAll(async () => gw?.close());

const UNIT = usd(0.001);
const unit = { estimate: UNIT, cost: UNIT };

/** `n` requests at once, from `raws` in turn, each with `body`. */
function burst(raws: readonly string[], n: number, body: Parameters<typeof charge>[2] = unit, i0 = 0): Promise<JsonResponse[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => charge(gw.url, raws[(i + i0) % raws.length] as string, { ...body, delay_ms: 10 + (i % 5) * 5 })));
}

function statuses(answers: readonly JsonResponse[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const a of answers) counts[a.status] = (counts[a.status] ?? 0) + 1;
  return counts;
}

async function setAccountLimits(accountId: string, limits: unknown): Promise<void> {
  const res = await adminClient(gw.url).call('PUT', `/accounts/${accountId}/limits`, limits);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** A second key of the same account. */
async function secondKey(accountId: string, limits: unknown = {}): Promise<string> {
  return (await adminClient(gw.url).mintKey(accountId, { limits })).raw;
}

/** The account's spend as the ledger has it, nano-USD. */
async function spent(accountId: string): Promise<bigint> {
  const f = await ledgerFigures(gw.deps, accountId);
  return f.cost - f.absorbed;
}

describe('weekly spend caps', () => {
  it('refuse a narrower cap above a wider one, on keys and accounts', async () => {
    const admin = adminClient(gw.url);
    const accountId = await admin.createAccount();
    const res = await admin.call('POST', `/accounts/${accountId}/keys`, { name: 'k', limits: { spend_cap_usd: { day: 5, week: 4 } } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.param).toBe('limits.spend_cap_usd.day');
    expect(res.body.error.message).toContain('the day cap is above the week cap');
    const acct = await admin.call('PUT', `/accounts/${accountId}/limits`, { spend_cap_usd: { week: 50, month: 20 } });
    expect(acct.status).toBe(400);
    expect(acct.body.error.message).toContain('the week cap is above the month cap');
  }, 120_000);

  it('admit at most what fits under a 100-way burst, name the cap and roll over at Monday 00:00 UTC only', async () => {
    clock.set('2031-02-02T23:50:00.000Z');
    const { accountId, raw } = await accountWithKey(gw.url, 1, { limits: { spend_cap_usd: { week: 0.01, month: 1 } } });
    const answers = await burst([raw], 100);
    expect(statuses(answers)).toEqual({ 200: 10, 403: 90 });
    const refused = answers.find((a) => a.status === 403);
    expect(refused?.body.error.code).toBe('key_limit_exceeded');
    expect(refused?.body.error.message).toContain('weekly (ISO week, from Monday 00:00 UTC) spend cap of $0.01 (spend_cap_usd.week)');
    expect(refused?.body.error.message).toContain('It resets at 2031-02-03T00:00:00.000Z.');
    expect(await spent(accountId)).toBeLessThanOrEqual(usd(0.01));
    clock.set('2031-02-02T23:59:59.999Z');
    expect((await charge(gw.url, raw, unit)).status).toBe(403);
    clock.set('2031-02-03T00:00:00.000Z');
    expect(statuses(await burst([raw], 100))).toEqual({ 200: 10, 403: 90 });
    expect(await spent(accountId)).toBe(usd(0.02));
    const info = await call(gw.url, 'GET', '/v1/key', { token: raw });
    expect(info.body.data.usage.week_usd).toBe(0.01);
    expect(info.body.data.usage.month_usd).toBe(0.02);
  }, 120_000);
});

describe('account limits across keys', () => {
  it('hold a weekly account cap under a 100-way burst over two keys', async () => {
    const { accountId, raw } = await accountWithKey(gw.url, 1);
    const other = await secondKey(accountId);
    await setAccountLimits(accountId, { spend_cap_usd: { day: 0.01, week: 0.01 } });
    const answers = await burst([raw, other], 100);
    expect(statuses(answers)).toEqual({ 200: 10, 403: 90 });
    expect(answers.find((a) => a.status === 403)?.body.error.message).toContain("This key's account reached its daily (UTC day) spend cap of $0.01");
    expect(await spent(accountId)).toBeLessThanOrEqual(usd(0.01));
    // Removing the limits lets the keys spend again at once.
    await setAccountLimits(accountId, {});
    expect((await charge(gw.url, other, unit)).status).toBe(200);
  }, 120_000);

  it('count requests per minute across keys, with a truthful Retry-After', async () => {
    const { accountId, raw } = await accountWithKey(gw.url, 1);
    const other = await secondKey(accountId);
    await setAccountLimits(accountId, { rpm: 10 });
    const answers = await burst([raw, other], 100);
    expect(statuses(answers)).toEqual({ 200: 10, 429: 90 });
    const refused = answers.find((a) => a.status === 429) as JsonResponse;
    expect(refused.body.error.message).toContain("the account's limit of 10 requests per minute");
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    clock.advance(wait * 1000);
    expect((await charge(gw.url, other, unit)).status).toBe(200);
  }, 120_000);
});

describe('tokens per minute', () => {
  it('admit at most what fits per key under a 100-way burst; Retry-After is when a retry fits', async () => {
    const { raw } = await accountWithKey(gw.url, 1, { limits: { tpm: 1000 } });
    const answers = await burst([raw], 100, { ...unit, tokens: 100, billed_tokens: 100 });
    expect(statuses(answers)).toEqual({ 200: 10, 429: 90 });
    const refused = answers.find((a) => a.status === 429) as JsonResponse;
    expect(refused.body.error.code).toBe('rate_limited');
    expect(refused.body.error.message).toContain("this key's limit (tpm) of 1000 tokens per minute");
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBe(60);
    clock.advance(wait * 1000 - 1_000);
    expect((await charge(gw.url, raw, { ...unit, tokens: 100 })).status).toBe(429);
    clock.advance(1_000);
    expect((await charge(gw.url, raw, { ...unit, tokens: 100 })).status).toBe(200);
  }, 120_000);

  it('replace the reservation with the tokens billed, and refuse a request that alone exceeds the limit', async () => {
    const { raw } = await accountWithKey(gw.url, 1, { limits: { tpm: 1000 } });
    // Reserves 900, bills 100: 900 tokens are free again once it settles.
    expect((await charge(gw.url, raw, { ...unit, tokens: 900, billed_tokens: 100 })).status).toBe(200);
    expect((await charge(gw.url, raw, { ...unit, tokens: 800, billed_tokens: 800 })).status).toBe(200);
    const full = await charge(gw.url, raw, { ...unit, tokens: 200 });
    expect(full.status).toBe(429);
    expect(full.body.error.message).toContain('900 are reserved in the last minute and this request needs 200');
    const alone = await charge(gw.url, raw, { ...unit, tokens: 1001 });
    expect(alone.status).toBe(429);
    expect(alone.body.error.message).toContain('This request alone reserves 1001 tokens');
  }, 120_000);

  it('count streams while they run, and hold an account tpm over two keys', async () => {
    const { accountId, raw } = await accountWithKey(gw.url, 1);
    const other = await secondKey(accountId);
    await setAccountLimits(accountId, { tpm: 500 });
    const stream = await fetch(`${gw.url}/test/stream`, { method: 'POST', headers: { authorization: `Bearer ${raw}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'local/echo', estimate: '1', tokens: 400 }) });
    expect(stream.status).toBe(200);
    const reader = stream.body?.getReader();
    await reader?.read();
    expect((await charge(gw.url, other, { ...unit, tokens: 200 })).status).toBe(429);
    await reader?.cancel();
    clock.advance(61_000);
    expect(statuses(await burst([raw, other], 100, { ...unit, tokens: 50, billed_tokens: 50 }))).toEqual({ 200: 10, 429: 90 });
  }, 120_000);
});
