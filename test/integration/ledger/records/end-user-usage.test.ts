import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from '../../../helpers/admin-client.js';
import { startTestGateway, testEnv, type TestGateway } from '../../../helpers/test-gateway.js';
import { chat, fundedKey, type FundedKey } from '../../chat/chat-client.js';
import { adminGet, keyGet, waitRecord } from './records-client.js';

let gw: TestGateway;
let owner: FundedKey;
let management: string;
/** Request ids of each end user's charged requests. */
const byUser: Record<string, string[]> = { alice: [], 'bob@example.com': [] };

const rid = (res: { headers: Headers }) => res.headers.get('x-service-request-id') ?? '';

beforeAll(async () => {
  gw = await startTestGateway({ env: testEnv({ LOG_LEVEL: 'warn' }) });
  owner = await fundedKey(gw.url, 5);
  management = (await adminClient(gw.url).mintKey(owner.accountId, { role: 'management' })).raw;
  for (const [user, n] of [['alice', 2], ['bob@example.com', 1]] as const) {
    for (let i = 0; i < n; i += 1) {
      const res = await chat(gw.url, owner.raw, { model: 'local/echo', user, messages: [{ role: 'user', content: `hello ${i}` }] });
      expect(res.status).toBe(200);
      byUser[user]?.push(rid(res));
    }
  }
  // A request naming nobody, and one refused for alice, count for neither end user.
  expect((await chat(gw.url, owner.raw, { model: 'local/echo', messages: [{ role: 'user', content: 'nobody' }] })).status).toBe(200);
  const refused = await chat(gw.url, owner.raw, { model: 'no/such-model', user: 'alice', messages: [{ role: 'user', content: 'x' }] });
  expect(refused.status).toBeGreaterThanOrEqual(400);
  for (const id of [...(byUser.alice ?? []), ...(byUser['bob@example.com'] ?? []), rid(refused)]) await waitRecord(gw.url, id);
}, 60_000);
afterAll(async () => gw?.close());

/** The ledger's figures for some charged requests, as usage rows report them. */
async function ledgerRow(ids: readonly string[]) {
  const charges = await gw.deps.c.ledger.find({ _id: { $in: [...ids] }, kind: 'charge' }).toArray();
  expect(charges).toHaveLength(ids.length);
  return {
    date: new Date().toISOString().slice(0, 10),
    model: 'local/echo',
    requests: ids.length,
    cost_usd: Number(charges.reduce((s, c) => s + c.cost, 0n)) / 1e9,
    input_tokens: charges.reduce((s, c) => s + (c.units?.prompt ?? 0), 0),
    output_tokens: charges.reduce((s, c) => s + (c.units?.completion ?? 0), 0),
  };
}

describe('usage of one end user', () => {
  it('GET /v1/usage?end_user= counts only the charged requests of that end user, as the ledger has them', async () => {
    const alice = await keyGet(gw.url, management, '/v1/usage?end_user=alice');
    expect(alice.status).toBe(200);
    expect(alice.body.data).toEqual([await ledgerRow(byUser.alice ?? [])]);
    const bob = await keyGet(gw.url, management, `/v1/usage?end_user=${encodeURIComponent('bob@example.com')}`);
    expect(bob.body.data).toEqual([await ledgerRow(byUser['bob@example.com'] ?? [])]);
    expect((await keyGet(gw.url, management, '/v1/usage?end_user=carol')).body.data).toEqual([]);
    // Without the filter, every charge of the account counts.
    const all = await keyGet(gw.url, management, '/v1/usage');
    expect(all.body.data[0].requests).toBe(4);
  });

  it('the operator view filters the same way, within an account or across accounts', async () => {
    const mine = await keyGet(gw.url, management, '/v1/usage?end_user=alice');
    const scoped = await adminGet(gw.url, `/usage?account_id=${owner.accountId}&end_user=alice`);
    expect(scoped.status).toBe(200);
    expect(scoped.body.data).toEqual(mine.body.data);
    // Another account's alice is another end user, and only the unscoped view adds her up.
    const other = await fundedKey(gw.url, 5);
    const res = await chat(gw.url, other.raw, { model: 'local/echo', user: 'alice', messages: [{ role: 'user', content: 'elsewhere' }] });
    await waitRecord(gw.url, rid(res));
    expect((await keyGet(gw.url, management, '/v1/usage?end_user=alice')).body.data).toEqual(mine.body.data);
    expect((await adminGet(gw.url, '/usage?end_user=alice')).body.data[0].requests).toBe(3);
  });

  it('answers a bad end_user with a 400 naming it', async () => {
    for (const query of ['end_user=', `end_user=${'x'.repeat(257)}`, 'end_user=a&end_user=b']) {
      const res = await keyGet(gw.url, management, `/v1/usage?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.param, query).toBe('end_user');
      const admin = await adminGet(gw.url, `/usage?${query}`);
      expect(admin.status, query).toBe(400);
      expect(admin.body.error.param, query).toBe('end_user');
    }
  });
});
