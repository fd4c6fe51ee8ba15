import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChargeSpool } from '../../../src/ledger/charge-spool.js';
import { LedgerWriter } from '../../../src/ledger/ledger-writer.js';
import { SpoolingLedger } from '../../../src/ledger/spooling-ledger.js';
import { adminClient } from '../../helpers/admin-client.js';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.js';
import { waitFor } from '../../helpers/wait-for.js';

let gw: TestGateway;
let dir: string;

beforeAll(async () => {
  gw = await startTestGateway();
  dir = await mkdtemp(path.join(tmpdir(), 'fbx-spool-drain-'));
});
afterAll(async () => {
  await gw?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const at = new Date('2026-03-10T12:00:00Z');

describe('draining the charge spool', () => {
  it('commits spooled charges once, and sets aside one that can never commit instead of blocking', async () => {
    const admin = adminClient(gw.url);
    const accountId = await admin.createAccount();
    await admin.topup(accountId, 1);
    const { keyId } = await admin.mintKey(accountId);
    const spool = new ChargeSpool(dir, gw.deps.log);
    await spool.start();
    const good = { accountId, keyId, model: 'local/echo', at };
    await spool.append({ ...good, requestId: 'req_spooled_1', cost: 1_234n });
    await spool.append({ ...good, requestId: 'req_spooled_2', cost: 5n });
    await spool.append({ ...good, requestId: 'req_spooled_1', cost: 1_234n });
    await spool.append({ ...good, accountId: 'acct_gone', requestId: 'req_orphan', cost: 9n });
    const health = { writable: true };
    const ledger = new SpoolingLedger(new LedgerWriter(gw.deps.mongo.client, gw.deps.c, gw.deps.log), spool, health, undefined, gw.deps.log, { tickMs: 50 });
    expect(ledger.canCharge()).toBe(false);
    await waitFor('the spool to drain on its own', () => ledger.pending() === 0, { timeoutMs: 5_000 });
    await ledger.drain();
    expect(ledger.pending()).toBe(0);
    expect(ledger.canCharge()).toBe(true);
    const entries = await gw.deps.c.ledger.find({ account_id: accountId, kind: 'charge' }).toArray();
    expect(entries.map((e) => [e._id, e.cost]).sort()).toEqual([['req_spooled_1', 1_234n], ['req_spooled_2', 5n]]);
    expect((await gw.deps.accounts.get(accountId)).balance).toBe(1_000_000_000n - 1_239n);
    expect(await readFile(path.join(dir, 'set-aside.jsonl'), 'utf8')).toContain('req_orphan');
  });
});
