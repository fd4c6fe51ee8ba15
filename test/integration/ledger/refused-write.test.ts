import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeySpendDoc } from '../../../src/accounts/index.js';
import { LedgerWriter } from '../../../src/ledger/ledger-writer.js';
import { adminClient } from '../../helpers/admin-client.js';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.js';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.close();
});

describe('a ledger batch with a write MongoDB refuses', () => {
  it('fails every charge of the batch and commits none of its writes', async () => {
    const admin = adminClient(gw.url);
    const accountId = await admin.createAccount();
    await admin.topup(accountId, '1');
    const { keyId } = await admin.mintKey(accountId);
    // A spend bucket whose amount cannot be incremented: the batch's spend update gets a
    // document-level write error, which a write command reports in its reply, not as a failure.
    const broken = { _id: `${keyId}:life`, key_id: keyId, period: 'life', amount: 'not a number' } as unknown as KeySpendDoc;
    await gw.deps.c.keySpend.insertOne(broken);
    const before = await gw.deps.c.accounts.findOne({ _id: accountId });
    const writer = new LedgerWriter(gw.deps.mongo.client, gw.deps.c, gw.deps.log);
    const ids = [`req_refused_${keyId}_1`, `req_refused_${keyId}_2`];

    const results = await Promise.allSettled(ids.map((requestId) => writer.charge({ requestId, accountId, keyId, model: 'local/echo', cost: 1_000_000n, at: new Date() })));

    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await gw.deps.c.ledger.countDocuments({ _id: { $in: ids } })).toBe(0);
    const after = await gw.deps.c.accounts.findOne({ _id: accountId });
    expect({ balance: after?.balance, charged: after?.charged, head: after?.ledger_head }).toEqual({ balance: before?.balance, charged: before?.charged, head: before?.ledger_head });
    expect(await gw.deps.c.keySpend.countDocuments({ key_id: { $in: [keyId, accountId] }, _id: { $ne: broken._id } })).toBe(0);
  });
});
