import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodOf } from '../../../src/billing/index.js';
import { LedgerWriter } from '../../../src/ledger/ledger-writer.js';
import { verifyAllLedgerChains } from '../../../src/ledger/chain-verify.js';
import { prepareDatabase } from '../../../src/store/prepare-database.js';
import { adminClient } from '../../helpers/admin-client.js';
import { fundedKey } from '../chat/chat-client.js';
import { keyLifetimeSpend } from '../../helpers/key-spend.js';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.js';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.close();
});

describe('spend buckets in the accounts collection', () => {
  it('takes in the buckets an older release left in key_spend exactly once, however often the release runs', async () => {
    const admin = adminClient(gw.url);
    const { accountId, keyId } = await fundedKey(gw.url, '1');
    const chargedAt = new Date();
    await new LedgerWriter(gw.deps.mongo.client, gw.deps.c, gw.deps.log).charge({ requestId: `req_legacy_${keyId}`, accountId, keyId, model: 'local/echo', cost: 40n, at: chargedAt });
    // What an older release wrote: the same key's lifetime bucket, and more than one move's worth of others.
    const legacy = gw.deps.mongo.db.collection<{ _id: string; key_id: string; period: string; amount: bigint; expires_at?: Date }>('key_spend');
    const expires = new Date('2030-01-01T00:00:00Z');
    await legacy.insertMany([
      { _id: `${keyId}:life`, key_id: keyId, period: 'life', amount: 2n },
      ...Array.from({ length: 600 }, (_, i) => ({ _id: `${keyId}:u:t${i}:d:2029-12-01`, key_id: `${keyId}:u:t${i}`, period: 'd:2029-12-01', amount: BigInt(i), expires_at: expires })),
    ]);

    const runs = [];
    for (let i = 0; i < 2; i++) runs.push((await prepareDatabase(gw.deps.mongo.db, gw.config.catalogFile)).spendMoved);
    expect(runs).toEqual([601, 0]);
    expect(await legacy.countDocuments()).toBe(0);
    expect(await keyLifetimeSpend(gw.deps.c, keyId)).toBe(42n);
    expect(await gw.deps.c.keySpend.findOne({ _id: `${keyId}:u:t599:d:2029-12-01` })).toMatchObject({ amount: 599n, key_id: `${keyId}:u:t599`, expires_at: expires });

    // Buckets are never taken for accounts: not in listings, not by id, not by the chain walk.
    const listed = await admin.call('GET', '/accounts?limit=100');
    const ids = (listed.body.data as Array<{ account_id: string }>).map((a) => a.account_id);
    expect(ids).toContain(accountId);
    // An account's own day bucket starts with its id: only the colon tells them apart.
    expect(ids.filter((id) => id.includes(':'))).toEqual([]);
    const byId = await admin.call('GET', `/accounts?q=${encodeURIComponent(`${keyId}:life`)}`);
    expect(byId.body.data).toEqual([]);
    const bucket = encodeURIComponent(`${accountId}:${periodOf('day', chargedAt)}`);
    expect(await gw.deps.c.keySpend.findOne({ _id: decodeURIComponent(bucket) })).toMatchObject({ amount: 40n });
    expect((await admin.call('GET', `/accounts/${bucket}`)).status).toBe(404);
    expect((await admin.call('POST', `/accounts/${bucket}/topups`, { amount_usd: '1', reference: 'r' })).status).toBe(404);
    expect((await admin.call('PUT', `/accounts/${bucket}/limits`, {})).status).toBe(404);
    const walked = await verifyAllLedgerChains(gw.deps.c);
    expect(walked).toEqual({ accounts: await gw.deps.c.accounts.countDocuments({ _id: /^acct_[^:]*$/ }), broken: [] });
  });
});
