import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerWriter } from '../../../src/ledger/ledger-writer.js';
import { readMirrorSnapshot } from '../../../src/admission/mirror-snapshot.js';
import { adminClient, call } from '../../helpers/admin-client.js';
import { startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from '../../helpers/test-gateway.js';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.close();
});

const NANO = 1_000_000_000n;

describe("a key's lifetime spend", () => {
  it('adds charges to what the key document held before, wherever it is read', async () => {
    const admin = adminClient(gw.url);
    const accountId = await admin.createAccount();
    await admin.topup(accountId, '1');
    const { keyId, raw } = await admin.mintKey(accountId, { limits: { spend_cap_usd: { lifetime: 0.5 } } });
    // Spend recorded on the key document itself, as charges before the lifetime document left it.
    await gw.deps.c.keys.updateOne({ _id: keyId }, { $set: { spend: NANO / 10n } });
    const writer = new LedgerWriter(gw.deps.mongo.client, gw.deps.c, gw.deps.log);
    const at = new Date();
    await Promise.all([1, 2, 3].map((i) => writer.charge({ requestId: `req_life_${keyId}_${i}`, accountId, keyId, model: 'local/echo', cost: NANO / 100n, at })));
    const expected = NANO / 10n + (3n * NANO) / 100n;

    // The lifetime document holds the charges alone; the key document is not written by charges.
    expect((await gw.deps.c.keySpend.findOne({ _id: `${keyId}:life` }))?.amount).toBe((3n * NANO) / 100n);
    expect((await gw.deps.c.keys.findOne({ _id: keyId }))?.spend).toBe(NANO / 10n);

    const view = await call(gw.url, 'GET', `/v1/admin/accounts/${accountId}/keys`, { token: TEST_ADMIN_TOKEN });
    const listed = (view.body.data as Array<{ key_id: string; spend_usd: number }>).find((k) => k.key_id === keyId);
    expect(listed?.spend_usd).toBeCloseTo(0.13, 9);

    const own = await call(gw.url, 'GET', '/v1/key', { token: raw });
    expect(own.status).toBe(200);
    const info = own.body.data as { spend_usd: number; remaining: { lifetime_usd: number } };
    expect(info.spend_usd).toBeCloseTo(0.13, 9);
    expect(info.remaining.lifetime_usd).toBeCloseTo(0.37, 9);

    const snapshot = await readMirrorSnapshot(gw.deps.mongo.client, gw.deps.c, { accountId, keyId, names: ['lifetime'], at, since: at, checkIds: [] });
    expect(snapshot.figures.get('lifetime')).toBe(expected);
  });
});
