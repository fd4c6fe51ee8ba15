import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, call } from '../../helpers/admin-client.js';
import type { TestGateway } from '../../helpers/test-gateway.js';
import { accountWithKey, charge, manualClock, startLimitsGateway, usd } from './limits-fixtures.js';

const clock = manualClock('2031-05-14T09:00:00.000Z');
let gw: TestGateway;

beforeAll(async () => {
  gw = await startLimitsGateway({ clock: clock.clock });
}, 60_000);
afterAll(async () => gw?.close());

const chat = (extra: Record<string, unknown> = {}) => ({ model: 'local/echo', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }], ...extra });

async function quote(raw: string, endpoint: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return call(gw.url, 'POST', '/v1/quote', { token: raw, body: { endpoint, body }, headers });
}

/** The `remaining` of a `limit_usage` row, by scope and limit. */
function remainingOf(rows: Array<Record<string, unknown>>, scope: string, limit: string): number | undefined {
  const row = rows.find((r) => r.scope === scope && r.limit === limit);
  return row === undefined ? undefined : Number(row.remaining);
}

/**
 * One account with a day cap of $0.10 across its keys; key A has its own day cap of $1 and an
 * end-user day cap of $0.02. Key B spends $0.06 (account room $0.04), then alice spends $0.01
 * through key A (account room $0.03, alice's room $0.01, key A's room $0.99).
 */
async function setUp(): Promise<{ raw: string }> {
  const { accountId, raw } = await accountWithKey(gw.url, 1, { limits: { spend_cap_usd: { day: 1 }, end_user_limits: { spend_cap_usd: { day: 0.02 } } } });
  const admin = adminClient(gw.url);
  const set = await admin.call('PUT', `/accounts/${accountId}/limits`, { spend_cap_usd: { day: 0.1 } });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  const other = (await admin.mintKey(accountId)).raw;
  expect((await charge(gw.url, other, { estimate: usd(0.06), cost: usd(0.06) })).status).toBe(200);
  expect((await charge(gw.url, raw, { estimate: usd(0.01), cost: usd(0.01), end_user: 'alice' })).status).toBe(200);
  return { raw };
}

describe('one room under every cap, for GET /v1/key and /v1/quote', () => {
  it('GET /v1/key and the quote report the same rooms for the key, its account and the named end user', async () => {
    const { raw } = await setUp();
    const info = await call(gw.url, 'GET', '/v1/key', { token: raw, headers: { 'x-farebox-end-user': 'alice' } });
    expect(info.status).toBe(200);
    const rows = info.body.data.limit_usage as Array<Record<string, unknown>>;
    expect(info.body.data.remaining.day_usd).toBeCloseTo(0.99, 9);
    expect(remainingOf(rows, 'key', 'spend_cap_usd.day')).toBeCloseTo(0.99, 9);
    expect(remainingOf(rows, 'account', 'spend_cap_usd.day')).toBeCloseTo(0.03, 9);
    expect(remainingOf(rows, 'end_user', 'spend_cap_usd.day')).toBeCloseTo(0.01, 9);

    const q = await quote(raw, 'chat/completions', chat({ user: 'alice' }));
    expect(q.status, JSON.stringify(q.body)).toBe(200);
    const data = q.body.data;
    expect(data.end_user).toBe('alice');
    expect(Number(data.checks.spend_cap_day.room_usd)).toBe(remainingOf(rows, 'key', 'spend_cap_usd.day'));
    expect(Number(data.checks.account_spend_cap_day.room_usd)).toBe(remainingOf(rows, 'account', 'spend_cap_usd.day'));
    expect(Number(data.checks.end_user_spend_cap_day.room_usd)).toBe(remainingOf(rows, 'end_user', 'spend_cap_usd.day'));
    expect(data.tightest).toBe('end_user_spend_cap_day');
  }, 60_000);

  it('names the end user as its request would: user, metadata.user_id or the header; none leaves the end-user cap out', async () => {
    const { raw } = await setUp();
    const none = await quote(raw, 'chat/completions', chat());
    expect(none.status).toBe(200);
    expect(none.body.data.end_user).toBeNull();
    expect(none.body.data.checks.end_user_spend_cap_day).toBeUndefined();
    expect(none.body.data.tightest).toBe('account_spend_cap_day');
    // Another end user has the whole cap, which is still tighter than the account's room.
    const bob = await quote(raw, '/v1/chat/completions', chat({ user: 'bob' }));
    expect(bob.body.data.checks.end_user_spend_cap_day.room_usd).toBe('0.02');
    const messages = await quote(raw, 'messages', chat({ metadata: { user_id: 'alice' } }));
    expect(messages.body.data).toMatchObject({ end_user: 'alice', checks: { end_user_spend_cap_day: { room_usd: '0.01' } } });
    const header = await quote(raw, 'responses', { model: 'local/echo', input: 'hi', user: 'bob' }, { 'x-farebox-end-user': 'alice' });
    expect(header.body.data).toMatchObject({ end_user: 'alice', checks: { end_user_spend_cap_day: { room_usd: '0.01' } } });
  }, 60_000);

  it('says a request does not fit when only an account or end-user cap is too tight', async () => {
    const { raw } = await setUp();
    // Alice spends all but 100 nano-dollars of her day cap: a chat hold no longer fits her room.
    expect((await charge(gw.url, raw, { estimate: usd(0.0099999), cost: usd(0.0099999), end_user: 'alice' })).status).toBe(200);
    const q = await quote(raw, 'chat/completions', chat({ user: 'alice' }));
    expect(q.body.data).toMatchObject({
      fits: false,
      tightest: 'end_user_spend_cap_day',
      checks: { end_user_spend_cap_day: { fits: false, room_usd: '0.0000001' }, spend_cap_day: { fits: true }, account_spend_cap_day: { fits: true }, balance: { fits: true } },
    });
    // Admission agrees: the request itself is refused for the end user's cap.
    const res = await call(gw.url, 'POST', '/v1/chat/completions', { token: raw, body: chat({ user: 'alice' }) });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain('end_user_limits.spend_cap_usd.day');
  }, 60_000);

  it('answers a bad end user in the quoted body with a 400 naming the field', async () => {
    const { raw } = await accountWithKey(gw.url, 1);
    const empty = await quote(raw, 'chat/completions', chat({ user: '' }));
    expect(empty.status).toBe(400);
    expect(empty.body.error).toMatchObject({ code: 'invalid_request', param: 'body.user' });
    const long = await quote(raw, 'messages', chat({ metadata: { user_id: 'x'.repeat(257) } }));
    expect(long.status).toBe(400);
    expect(long.body.error.param).toBe('body.metadata.user_id');
  }, 60_000);
});
