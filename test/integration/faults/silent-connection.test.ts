import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMongo, REPLY_TIMEOUT_MS, type Mongo } from '../../../src/platform/db/mongo.js';
import { LedgerWriter } from '../../../src/ledger/ledger-writer.js';
import { classifyError } from '../../../src/platform/errors/index.js';
import { collections } from '../../../src/store/index.js';
import { fundedKey } from '../chat/chat-client.js';
import { silencingProxy, type SilencingProxy } from '../../helpers/silencing-proxy.js';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.js';

let gw: TestGateway;
let proxy: SilencingProxy;
let mongo: Mongo;
let unlimited: Mongo;

beforeAll(async () => {
  gw = await startTestGateway();
  const [host, port] = new URL(gw.config.mongoUri).host.split(',')[0]!.split(':');
  proxy = await silencingProxy({ host: host!, port: Number(port) });
  // A short reply timeout keeps the test short; the gateway's own is REPLY_TIMEOUT_MS.
  mongo = openMongo(`mongodb://127.0.0.1:${proxy.port}/?directConnection=true`, gw.config.mongoDb, { replyTimeoutMs: 1_000 });
  unlimited = openMongo(`mongodb://127.0.0.1:${proxy.port}/?directConnection=true`, gw.config.mongoDb, { replyTimeoutMs: 0 });
});
afterAll(async () => {
  await mongo?.close();
  await unlimited?.close().catch(() => undefined);
  await proxy?.close();
  await gw?.close();
});

/** Resolves with `promise`'s value, or with 'still waiting' once `ms` have passed. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | 'still waiting'> {
  return Promise.race([promise, new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), ms).unref())]);
}

describe('a connection that goes silent mid-charge (its host died: no reply, no reset)', () => {
  it('gives up on it and commits the charge once, on a fresh connection', async () => {
    const { accountId, keyId } = await fundedKey(gw.url, '1');
    const writer = new LedgerWriter(mongo.client, collections(mongo.db), gw.deps.log);
    const charge = (n: number) => writer.charge({ requestId: `req_silent_${accountId}_${n}`, accountId, keyId, model: 'local/echo', cost: 5n, at: new Date() });
    await charge(1);

    // The batch's entry goes out and no answer ever comes back, nor a reset; the server's
    // monitor sees nothing wrong, so only the reply timeout ends the wait.
    proxy.silenceNext(`req_silent_${accountId}_2`);
    const outcome = await within(charge(2), 20_000);
    expect(outcome).toMatchObject({ charged: 5n, duplicate: false });

    const entries = await gw.deps.c.ledger.countDocuments({ _id: { $in: [`req_silent_${accountId}_1`, `req_silent_${accountId}_2`] } });
    expect(entries).toBe(2);
    expect((await gw.deps.c.accounts.findOne({ _id: accountId }))?.charged).toBe(10n);
    // The gateway's own connections wait no longer than that for any reply.
    expect(gw.deps.mongo.client.options.socketTimeoutMS).toBe(REPLY_TIMEOUT_MS);
  }, 60_000);

  it('with no reply limit, gives the charge back as a 503 at the batch deadline, and a retry commits it once', async () => {
    const { accountId, keyId } = await fundedKey(gw.url, '1');
    // The reaper may end the abandoned transaction, which still holds the account, once it is idle for 1 s.
    const writer = new LedgerWriter(unlimited.client, collections(unlimited.db), gw.deps.log, { deadlineMs: 2_000, reapAfterMs: 500, orphanIdleMs: 1_000 });
    const charge = (n: number) => writer.charge({ requestId: `req_deadline_${accountId}_${n}`, accountId, keyId, model: 'local/echo', cost: 7n, at: new Date() });
    await charge(1);

    proxy.silenceNext(`req_deadline_${accountId}_2`);
    const given = await within(charge(2).catch((err: unknown) => err), 20_000);
    expect(classifyError(given)).toMatchObject({ status: 503 });
    // The writer is not held by the batch it gave up on: the same charge goes again and commits.
    expect(await within(charge(2), 20_000)).toMatchObject({ charged: 7n, duplicate: false });

    expect(await gw.deps.c.ledger.countDocuments({ account_id: accountId, kind: 'charge' })).toBe(2);
    expect((await gw.deps.c.accounts.findOne({ _id: accountId }))?.charged).toBe(14n);
  }, 60_000);

  it('lets charges of other accounts commit beside a batch that stalled', async () => {
    const [a, b] = [await fundedKey(gw.url, '1'), await fundedKey(gw.url, '1')];
    const writer = new LedgerWriter(unlimited.client, collections(unlimited.db), gw.deps.log, { deadlineMs: 8_000, reapAfterMs: 500, orphanIdleMs: 1_000 });
    const charge = (k: { accountId: string; keyId: string }, id: string) => writer.charge({ requestId: id, accountId: k.accountId, keyId: k.keyId, model: 'local/echo', cost: 3n, at: new Date() });
    await charge(a, `req_stall_${a.accountId}_1`);

    proxy.silenceNext(`req_stall_${a.accountId}_2`);
    const stalled = charge(a, `req_stall_${a.accountId}_2`).catch((err: unknown) => err);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Well before the stalled batch's deadline, another account's charge goes beside it.
    expect(await within(charge(b, `req_stall_${b.accountId}_1`), 5_000)).toMatchObject({ charged: 3n });
    expect(classifyError(await stalled)).toMatchObject({ status: 503 });
  }, 60_000);
});
