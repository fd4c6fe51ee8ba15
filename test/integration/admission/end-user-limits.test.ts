import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, call, type JsonResponse } from '../../helpers/admin-client.js';
import type { TestGateway } from '../../helpers/test-gateway.js';
import { waitFor } from '../../helpers/wait-for.js';
import { adminText } from '../ledger/records/records-client.js';
import { accountWithKey, charge, manualClock, startLimitsGateway, usd } from './limits-fixtures.js';

const clock = manualClock('2031-03-10T12:00:00.000Z');
let gw: TestGateway;

beforeAll(async () => {
  gw = await startLimitsGateway({ clock: clock.clock });
});
afterAll(async () => gw?.close());

const UNIT = usd(0.001);
const LIMITS = { end_user_limits: { spend_cap_usd: { day: 0.01, week: 0.05 }, rpm: 1000, tpm: 100_000 } };

function statuses(answers: readonly JsonResponse[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const a of answers) counts[a.status] = (counts[a.status] ?? 0) + 1;
  return counts;
}

function burst(raw: string, n: number, endUser: string, extra: Record<string, unknown> = {}): Promise<JsonResponse[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => charge(gw.url, raw, { estimate: UNIT, cost: UNIT, end_user: endUser, delay_ms: 10 + (i % 5) * 5, ...extra })));
}

const chatBody = (extra: Record<string, unknown>) => ({ model: 'local/echo', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }], ...extra });

describe('end-user limits under one key', () => {
  it('hold each end user to its cap under a 100-way burst, separately, and the key spend within every cap', async () => {
    const { accountId, raw } = await accountWithKey(gw.url, 1, { limits: LIMITS });
    const [alice, bob] = await Promise.all([burst(raw, 100, 'alice'), burst(raw, 100, 'bob')]);
    expect(statuses(alice)).toEqual({ 200: 10, 403: 90 });
    expect(statuses(bob)).toEqual({ 200: 10, 403: 90 });
    const refused = alice.find((a) => a.status === 403) as JsonResponse;
    expect(refused.body.error.code).toBe('key_limit_exceeded');
    expect(refused.body.error.message).toContain('This end user reached its daily (UTC day) spend cap of $0.01 (end_user_limits.spend_cap_usd.day)');
    const charges = await gw.deps.c.ledger.find({ account_id: accountId, kind: 'charge' }).toArray();
    expect(charges.reduce((t, e) => t + e.cost, 0n)).toBe(usd(0.02));
    // Per end user, the spend buckets say the same as the ledger.
    const buckets = await gw.deps.c.keySpend.find({ key_id: { $regex: ':u:' }, period: { $regex: '^d:2031-03-10' } }).toArray();
    expect(buckets.filter((b) => b.key_id.startsWith(charges[0]?.key_id ?? '-')).map((b) => b.amount)).toEqual([usd(0.01), usd(0.01)]);
    clock.advance(24 * 3600 * 1000);
    expect(statuses(await burst(raw, 20, 'alice'))).toEqual({ 200: 10, 403: 10 });
  }, 120_000);

  it('hold an end user to its rpm and tpm, with Retry-After', async () => {
    const { raw } = await accountWithKey(gw.url, 1, { limits: { end_user_limits: { rpm: 10, tpm: 100_000 } } });
    const answers = await burst(raw, 100, 'carol');
    expect(statuses(answers)).toEqual({ 200: 10, 429: 90 });
    const refused = answers.find((a) => a.status === 429) as JsonResponse;
    expect(refused.body.error.message).toContain("this end user's limit of 10 requests per minute");
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await charge(gw.url, raw, { estimate: UNIT, cost: UNIT, end_user: 'dave' })).status).toBe(200);
    const { raw: tpmKey } = await accountWithKey(gw.url, 1, { limits: { end_user_limits: { tpm: 1000 } } });
    expect(statuses(await burst(tpmKey, 100, 'erin', { tokens: 100, billed_tokens: 100 }))).toEqual({ 200: 10, 429: 90 });
  }, 120_000);

  it('refuses requests naming no end user with a 400 naming the field, on every front door', async () => {
    const { raw } = await accountWithKey(gw.url, 1, { limits: LIMITS });
    const chat = await call(gw.url, 'POST', '/v1/chat/completions', { token: raw, body: chatBody({}) });
    expect(chat.status).toBe(400);
    expect(chat.body.error.param).toBe('user');
    const messages = await call(gw.url, 'POST', '/v1/messages', { token: raw, body: chatBody({}) });
    expect(messages.status).toBe(400);
    expect(JSON.stringify(messages.body)).toContain('metadata.user_id');
    expect((await call(gw.url, 'POST', '/v1/chat/completions', { token: raw, body: chatBody({ user: 'u-chat' }) })).status).toBe(200);
    expect((await call(gw.url, 'POST', '/v1/messages', { token: raw, body: chatBody({ metadata: { user_id: 'u-msg' } }) })).status).toBe(200);
    const header = await call(gw.url, 'POST', '/v1/chat/completions', { token: raw, body: chatBody({}), headers: { 'x-farebox-end-user': 'u-header' } });
    expect(header.status).toBe(200);
  }, 120_000);

  it('stores the end user on request records, filters by it, and shows its limits on GET /v1/key', async () => {
    const { accountId, raw } = await accountWithKey(gw.url, 1, { limits: LIMITS });
    for (const user of ['frank', 'frank', 'grace']) {
      expect((await call(gw.url, 'POST', '/v1/chat/completions', { token: raw, body: chatBody({ user }) })).status).toBe(200);
    }
    const admin = adminClient(gw.url);
    const listed = await waitFor('records of frank', async () => {
      const res = await admin.call('GET', `/requests?account_id=${accountId}&end_user=frank`);
      return res.body.data?.length === 2 ? res : undefined;
    }, { timeoutMs: 10_000 });
    for (const r of listed.body.data) expect(r.end_user).toBe('frank');
    // Records are written in batches: wait for grace's too, through the CSV export's filter.
    const rows = await waitFor('the CSV row of grace', async () => {
      const csv = await adminText(gw.url, `/v1/admin/requests.csv?account_id=${accountId}&end_user=grace`);
      const parsed = parse(csv.text, { columns: true }) as Array<Record<string, string>>;
      return parsed.length > 0 ? parsed : undefined;
    }, { timeoutMs: 10_000 });
    expect(rows.map((r) => r.end_user)).toEqual(['grace']);
    // End-user ids never become metric labels.
    expect((await adminText(gw.url, '/metrics')).text).not.toMatch(/frank|grace/);
    const info = await call(gw.url, 'GET', '/v1/key', { token: raw, headers: { 'x-farebox-end-user': 'frank' } });
    expect(info.status).toBe(200);
    expect(info.body.data.end_user).toBe('frank');
    const usage = info.body.data.limit_usage as Array<Record<string, unknown>>;
    const day = usage.find((r) => r.scope === 'end_user' && r.limit === 'spend_cap_usd.day');
    expect(day).toMatchObject({ value: 0.01, resets_at: '2031-03-12T00:00:00.000Z' });
    expect(Number(day?.used)).toBeGreaterThan(0);
    expect(usage.find((r) => r.scope === 'end_user' && r.limit === 'rpm')).toMatchObject({ value: 1000, used: 2 });
    expect(usage.find((r) => r.scope === 'end_user' && r.limit === 'spend_cap_usd.week')).toMatchObject({ value: 0.05, resets_at: '2031-03-17T00:00:00.000Z' });
  }, 120_000);
});
