import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../../scripts/admin/admin-commands.js';
import { verifyLedgerChain } from '../../../src/ledger/chain-verify.js';
import { ChargeSpool } from '../../../src/ledger/charge-spool.js';
import { entryHash, GENESIS_HASH } from '../../../src/ledger/ledger-chain.js';
import { LedgerWriter, type ChargeRequest } from '../../../src/ledger/ledger-writer.js';
import { SpoolingLedger } from '../../../src/ledger/spooling-ledger.js';
import { adminClient } from '../../helpers/admin-client.js';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.js';

let gw: TestGateway;
let dir: string;

beforeAll(async () => {
  gw = await startTestGateway();
  dir = await mkdtemp(path.join(tmpdir(), 'fbx-chain-'));
});
afterAll(async () => {
  await gw?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const at = new Date('2026-03-10T12:00:00Z');
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function account(usd: string): Promise<{ accountId: string; keyId: string }> {
  const admin = adminClient(gw.url);
  const accountId = await admin.createAccount();
  await admin.topup(accountId, usd);
  return { accountId, keyId: (await admin.mintKey(accountId)).keyId };
}

function writer(): LedgerWriter {
  return new LedgerWriter(gw.deps.mongo.client, gw.deps.c, gw.deps.log, { maxConcurrent: 4, maxBatch: 20, maxDelayMs: 1 });
}

function charges(prefix: string, a: { accountId: string; keyId: string }, n: number): ChargeRequest[] {
  return Array.from({ length: n }, (_, i) => ({ requestId: `${prefix}_${i}`, accountId: a.accountId, keyId: a.keyId, model: 'local/echo', cost: BigInt(1 + ((i * 7919) % 5_000)), at }));
}

/** The account's entries in chain order, and that every entry is in the chain once. */
async function expectWholeChain(accountId: string, entries: number): Promise<void> {
  const report = await verifyLedgerChain(gw.deps.c, accountId);
  expect(report).toMatchObject({ ok: true, entries, unchained: 0, break: null });
  expect(report.head?.seq).toBe(entries);
  expect(await gw.deps.c.ledger.countDocuments({ account_id: accountId })).toBe(entries);
}

describe('hash-chained ledger', () => {
  it('hashes the money facts main added to a charge: over_limit, cost_details and price_version', async () => {
    const a = await account('1');
    const w = writer();
    const lines = [{ component: 'prompt', units: 10, unit_price_usd: '0.0000001', amount_usd: '0.000001' }];
    const outcome = await w.charge({ requestId: 'req_over_limit', accountId: a.accountId, keyId: a.keyId, model: 'local/echo', cost: 1_000n, overLimit: 250n, lines, priceVersion: 'abcdef0123456789', at });
    await w.drain();
    expect(outcome.lines).toEqual(lines);
    expect(outcome.priceVersion).toBe('abcdef0123456789');
    await expectWholeChain(a.accountId, 2);
    const entry = (await gw.deps.c.ledger.findOne({ _id: 'req_over_limit' }))!;
    expect(entry).toMatchObject({ over_limit: 250n, absorbed_reason: 'upstream_over_limit', price_version: 'abcdef0123456789', cost_details: lines, hash: outcome.hash });
    // The account's absorbed total counts what the upstream ran over the hold.
    expect((await gw.deps.c.accounts.findOne({ _id: a.accountId }))!.absorbed).toBe(250n);
    for (const edit of [{ over_limit: 1n }, { price_version: '0000000000000000' }, { 'cost_details.0.amount_usd': '0.000002' }]) {
      await gw.deps.c.ledger.updateOne({ _id: entry._id }, { $set: edit });
      expect((await verifyLedgerChain(gw.deps.c, a.accountId)).break).toMatchObject({ entry_id: entry._id, reason: 'hash_mismatch' });
      await gw.deps.c.ledger.replaceOne({ _id: entry._id }, entry);
    }
    await expectWholeChain(a.accountId, 2);
  });

  it('links credits and charges of an account, and reports an edited entry as the first break', async () => {
    const a = await account('1');
    await adminClient(gw.url).call('POST', `/accounts/${a.accountId}/grants`, { amount_usd: '0.5', reference: 'promo' });
    const w = writer();
    await Promise.all(charges('req_tamper', a, 6).map((r) => w.charge(r)));
    await w.drain();
    await expectWholeChain(a.accountId, 8);

    const chain = await gw.deps.c.ledger.find({ account_id: a.accountId }).sort({ seq: 1 }).toArray();
    expect(chain[0]!.prev_hash).toBe(GENESIS_HASH);
    for (let i = 1; i < chain.length; i++) expect(chain[i]!.prev_hash).toBe(chain[i - 1]!.hash);
    for (const e of chain) expect(e.hash).toBe(entryHash(e));

    const victim = chain[4]!;
    await gw.deps.c.ledger.updateOne({ _id: victim._id }, { $set: { charged: victim.charged - 1n } });

    const res = await adminClient(gw.url).call('GET', `/accounts/${a.accountId}/ledger/verify`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ ok: false, break: { entry_id: victim._id, seq: 5, reason: 'hash_mismatch' } });
    const cli = (await COMMANDS['ledger:verify']!.run(gw.deps, { positionals: [a.accountId], options: {} })) as { ok: boolean; break: { entry_id: string } };
    expect(cli.ok).toBe(false);
    expect(cli.break.entry_id).toBe(victim._id);
    const all = (await COMMANDS['ledger:verify']!.run(gw.deps, { positionals: [], options: {} })) as { ok: boolean; broken: Array<{ account_id: string }> };
    expect(all.ok).toBe(false);
    expect(all.broken.map((b) => b.account_id)).toEqual([a.accountId]);

    // Re-hashing the edited entry does not hide it: its successor no longer links to it.
    await gw.deps.c.ledger.updateOne({ _id: victim._id }, { $set: { hash: entryHash({ ...victim, charged: victim.charged - 1n }) } });
    expect((await verifyLedgerChain(gw.deps.c, a.accountId)).break).toMatchObject({ entry_id: chain[5]!._id, reason: 'prev_hash_mismatch' });
  });

  it('keeps one chain per account under concurrent commits by two writers and top-ups', async () => {
    const accounts = [await account('1'), await account('0.00002'), await account('1')];
    const [w1, w2] = [writer(), writer()];
    const work = accounts.flatMap((a, i) => [
      ...charges(`req_c1_${i}`, a, 60).map((r) => w1.charge(r)),
      ...charges(`req_c2_${i}`, a, 60).map((r) => w2.charge(r)),
      // A replayed settle on the other writer: charged once, chained once.
      ...charges(`req_c1_${i}`, a, 20).map((r) => w2.charge(r)),
    ]);
    const topups = (async () => {
      for (let i = 0; i < 5; i++) {
        for (const a of accounts) await adminClient(gw.url).topup(a.accountId, '0.00001');
        await sleep(2);
      }
    })();
    await Promise.all([...work, topups]);
    await Promise.all([w1.drain(), w2.drain()]);
    for (const a of accounts) await expectWholeChain(a.accountId, 1 + 120 + 5);
  });

  it('chains charges that waited in the spool while MongoDB was unreachable, between live commits', async () => {
    const a = await account('1');
    const spool = new ChargeSpool(dir, gw.deps.log);
    await spool.start();
    const health = { writable: false };
    const ledger = new SpoolingLedger(writer(), spool, health, undefined, gw.deps.log, { tickMs: 20 });
    const spooled = await Promise.all(charges('req_spool', a, 15).map((r) => ledger.charge(r)));
    expect(spooled.every((o) => o.hash === undefined)).toBe(true);
    expect(ledger.pending()).toBe(15);
    await adminClient(gw.url).topup(a.accountId, '0.25');

    health.writable = true;
    const live = writer();
    const direct = Promise.all(charges('req_live', a, 15).map((r) => live.charge(r)));
    for (let i = 0; i < 200 && ledger.pending() > 0; i++) await sleep(20);
    await direct;
    await Promise.all([ledger.drain(), live.drain()]);
    expect(ledger.pending()).toBe(0);
    await expectWholeChain(a.accountId, 2 + 30);
    const committed = await gw.deps.c.ledger.findOne({ _id: 'req_spool_3' });
    expect(committed?.seq).toBeGreaterThan(0);
  });
});
