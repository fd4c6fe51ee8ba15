import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerWriter } from '../../../src/ledger/ledger-writer.js';
import { OrphanedTransactions, sessionHex } from '../../../src/ledger/orphaned-transactions.js';
import { adminClient } from '../../helpers/admin-client.js';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.js';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.close();
});

/**
 * A process that opens a transaction writing the account's document and is killed (SIGKILL)
 * before it commits, as a web killed in the middle of a ledger batch is.
 */
async function dieMidTransaction(mongoUri: string, dbName: string, accountId: string): Promise<string> {
  const code = `
    import { MongoClient } from 'mongodb';
    const client = new MongoClient(${JSON.stringify(mongoUri)});
    await client.connect();
    const session = client.startSession();
    session.startTransaction({ writeConcern: { w: 'majority' } });
    await client.db(${JSON.stringify(dbName)}).collection('accounts').updateOne({ _id: ${JSON.stringify(accountId)} }, { $set: { left_open_by_a_dead_process: true } }, { session });
    process.stdout.write('open ' + Buffer.from(session.id.id.buffer).toString('hex') + '\\n');
    process.kill(process.pid, 'SIGKILL');
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const session = /open ([0-9a-f]+)/.exec(out)?.[1];
  if (session === undefined) throw new Error('the child did not open its transaction');
  return session;
}

/** Whether that session still has a transaction open (other tests' sessions share this MongoDB). */
async function stillOpen(session: string): Promise<boolean> {
  const ops = await gw.deps.mongo.client
    .db('admin')
    .aggregate<{ lsid?: { id?: { buffer: Uint8Array } } }>([{ $currentOp: { allUsers: false, idleSessions: true } }, { $match: { type: 'idleSession', transaction: { $exists: true } } }])
    .toArray();
  return ops.some((op) => op.lsid?.id !== undefined && Buffer.from(op.lsid.id.buffer).toString('hex') === session);
}

describe('a process killed in the middle of a ledger transaction', () => {
  it("does not hold the account's charges until MongoDB's transaction limit: its transaction is aborted", async () => {
    const admin = adminClient(gw.url);
    const accountId = await admin.createAccount();
    await admin.topup(accountId, 1);
    const { keyId } = await admin.mintKey(accountId);
    const orphan = await dieMidTransaction(gw.config.mongoUri, gw.config.mongoDb, accountId);
    expect(await stillOpen(orphan)).toBe(true);

    const writer = new LedgerWriter(gw.deps.mongo.client, gw.deps.c, gw.deps.log, { reapAfterMs: 200, orphanIdleMs: 1_000 });
    const started = Date.now();
    const outcome = await writer.charge({ requestId: 'req_after_a_dead_writer', accountId, keyId, model: 'local/echo', cost: 1_000n, at: new Date() });
    const waited = Date.now() - started;

    expect(outcome.charged).toBe(1_000n);
    // Without the abort it waits for MongoDB's transactionLifetimeLimitSeconds (60 s).
    expect(waited).toBeLessThan(15_000);
    expect(await stillOpen(orphan)).toBe(false);
    const account = await gw.deps.c.accounts.findOne({ _id: accountId });
    expect(account?.balance).toBe(1_000_000_000n - 1_000n);
    expect((account as Record<string, unknown> | null)?.left_open_by_a_dead_process).toBeUndefined();
  }, 90_000);

  it("never aborts this process's own transaction in use, however long it has been idle", async () => {
    const accountId = await adminClient(gw.url).createAccount();
    const session = gw.deps.mongo.client.startSession();
    try {
      session.startTransaction({ writeConcern: { w: 'majority' } });
      await gw.deps.c.accounts.updateOne({ _id: accountId }, { $set: { note: 'still working' } }, { session });
      const own = sessionHex(session.id);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const reaper = new OrphanedTransactions(gw.deps.mongo.client, gw.deps.log, 1_000);
      expect(await reaper.reap(new Set([own]))).toBe(0);
      expect(await stillOpen(own)).toBe(true);
      await session.commitTransaction();
      expect(((await gw.deps.c.accounts.findOne({ _id: accountId })) as Record<string, unknown> | null)?.note).toBe('still working');
    } finally {
      await session.endSession();
    }
  });
});
