import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerBalance } from '../../../src/ledger/ledger-query.js';
import { adminClient, call } from '../../helpers/admin-client.js';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.js';

let gw: TestGateway;
let admin: ReturnType<typeof adminClient>;

beforeAll(async () => {
  gw = await startTestGateway();
  admin = adminClient(gw.url);
});
afterAll(async () => gw?.close());

describe('credits', () => {
  it('credits 20 concurrent top-ups with one reference exactly once', async () => {
    const accountId = await admin.createAccount();
    const results = await Promise.all(Array.from({ length: 20 }, () => admin.topup(accountId, '12.345678901', 'invoice-42')));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200)).toHaveLength(19);
    for (const r of results) expect(r.body.data.entry.id).toBe(results[0]?.body.data.entry.id);
    const account = await gw.deps.accounts.get(accountId);
    expect(account.balance).toBe(12_345_678_901n);
    expect(await gw.deps.c.ledger.countDocuments({ account_id: accountId })).toBe(1);
  });

  it('ends the free tier at the first top-up, for good, while grants leave it on', async () => {
    const accountId = await admin.createAccount();
    const { raw } = await admin.mintKey(accountId);
    const credits = () => call(gw.url, 'GET', '/v1/credits', { token: raw });
    expect((await credits()).body.data).toEqual({ balance_usd: 0, free_tier: true });

    expect((await admin.call('POST', `/accounts/${accountId}/grants`, { amount_usd: 1, reference: 'promo' })).status).toBe(201);
    expect((await credits()).body.data).toEqual({ balance_usd: 1, free_tier: true });

    expect((await admin.topup(accountId, 0.5, 'first')).status).toBe(201);
    expect((await credits()).body.data).toEqual({ balance_usd: 1.5, free_tier: false });

    const key = await gw.deps.c.keys.findOne({ account_id: accountId });
    const outcome = await gw.deps.ledger.charge({
      requestId: 'req_drain', accountId, keyId: key!._id, model: 'local/echo', cost: 2_000_000_000n, at: new Date(),
    });
    expect(outcome).toMatchObject({ cost: 2_000_000_000n, charged: 1_500_000_000n, absorbed: 500_000_000n, duplicate: false });
    expect((await credits()).body.data).toEqual({ balance_usd: 0, free_tier: false });
    expect((await gw.deps.ledger.charge({ requestId: 'req_drain', accountId, keyId: key!._id, model: 'local/echo', cost: 5n, at: new Date() })).duplicate).toBe(true);
    expect((await credits()).body.data).toEqual({ balance_usd: 0, free_tier: false });
  });

  it('keeps every balance equal to its ledger sum under concurrent charges, credits and replays', async () => {
    const accounts = await Promise.all([1, 2, 3].map(() => admin.createAccount()));
    const keys = await Promise.all(accounts.map((a) => admin.mintKey(a)));
    await Promise.all(accounts.map((a, i) => admin.topup(a, 0.001 * (i + 1), `seed-${i}`)));
    const work: Promise<unknown>[] = [];
    for (let i = 0; i < 600; i++) {
      const n = i % 3;
      const charge = { requestId: `req_c${i % 450}`, accountId: accounts[n]!, keyId: keys[n]!.keyId, model: 'local/echo', cost: BigInt(1 + (i % 7) * 1_000), at: new Date() };
      // Ids repeat past 450, so 150 charges are replays that must not count twice.
      work.push(gw.deps.ledger.charge(charge));
      if (i % 50 === 0) work.push(admin.topup(accounts[n]!, '0.000000123', `t-${i}`), admin.topup(accounts[n]!, '0.000000123', `t-${i}`));
    }
    await Promise.all(work);
    for (const accountId of accounts) {
      const account = await gw.deps.accounts.get(accountId);
      expect(account.balance).toBe(await ledgerBalance(gw.deps.c, accountId));
      expect(account.balance >= 0n).toBe(true);
    }
    const charges = await gw.deps.c.ledger.countDocuments({ kind: 'charge', account_id: { $in: accounts } });
    expect(charges).toBe(450);
  });
});
