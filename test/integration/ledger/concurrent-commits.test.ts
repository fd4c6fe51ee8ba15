import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerWriter, type ChargeOutcome, type ChargeRequest, type LedgerBatch, type LedgerWriterObserver } from '../../../src/ledger/ledger-writer.js';
import { periodOf } from '../../../src/billing/index.js';
import { verifyLedgerChain } from '../../../src/ledger/chain-verify.js';
import { adminClient } from '../../helpers/admin-client.js';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.js';
import { keyLifetimeSpend } from '../../helpers/key-spend.js';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.close();
});

const NANO = 1_000_000_000n;
const at = new Date('2026-03-10T12:00:00Z');
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Deterministic pseudo-random numbers, so a failure replays the same charges. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * Watches batches: the most in flight at once, and whether two batches in flight ever shared
 * an account.
 */
class OverlapWatch implements LedgerWriterObserver {
  maxInFlight = 0;
  batches = 0;
  /** Batches that charged more than one account (balances read and written in bulk). */
  wide = 0;
  sharedAccount = false;
  private readonly open = new Map<LedgerBatch, Set<string>>();

  batchStarted(batch: LedgerBatch, inFlight: number): void {
    this.batches++;
    if (batch.accounts.length > 1) this.wide++;
    this.maxInFlight = Math.max(this.maxInFlight, inFlight);
    for (const other of this.open.values()) if (batch.accounts.some((a) => other.has(a))) this.sharedAccount = true;
    this.open.set(batch, new Set(batch.accounts));
  }

  batchFinished(batch: LedgerBatch): void {
    this.open.delete(batch);
  }
}

interface Funded {
  accountId: string;
  keyIds: string[];
  credit: bigint;
}

async function fundedAccount(usd: string, keys = 1): Promise<Funded> {
  const admin = adminClient(gw.url);
  const accountId = await admin.createAccount();
  await admin.topup(accountId, usd);
  const keyIds: string[] = [];
  for (let i = 0; i < keys; i++) keyIds.push((await admin.mintKey(accountId)).keyId);
  const doc = await gw.deps.c.accounts.findOne({ _id: accountId });
  return { accountId, keyIds, credit: doc!.balance };
}

/** What the charges must come to if each ran alone, one after another in the order given. */
function serialReference(accounts: readonly Funded[], charges: readonly ChargeRequest[]) {
  const balance = new Map(accounts.map((a) => [a.accountId, a.credit]));
  const totals = new Map(accounts.map((a) => [a.accountId, { charged: 0n, absorbed: 0n }]));
  const keySpend = new Map<string, bigint>();
  const outcomes = new Map<string, { charged: bigint; absorbed: bigint }>();
  for (const r of charges) {
    if (outcomes.has(r.requestId)) continue;
    const b = balance.get(r.accountId)!;
    const charged = r.cost < b ? r.cost : b > 0n ? b : 0n;
    const absorbed = r.cost - charged;
    balance.set(r.accountId, b - charged);
    const t = totals.get(r.accountId)!;
    t.charged += charged;
    t.absorbed += absorbed;
    keySpend.set(r.keyId, (keySpend.get(r.keyId) ?? 0n) + r.cost);
    outcomes.set(r.requestId, { charged, absorbed });
  }
  return { balance, totals, keySpend, outcomes };
}

/** Sends charges in small bursts a millisecond or two apart, like requests finishing. */
async function sendInBursts(writer: LedgerWriter, charges: readonly ChargeRequest[], random: () => number): Promise<ChargeOutcome[]> {
  const results: Array<Promise<ChargeOutcome>> = [];
  for (let i = 0; i < charges.length; ) {
    const burst = 1 + Math.floor(random() * 12);
    for (const r of charges.slice(i, i + burst)) results.push(writer.charge(r));
    i += burst;
    await sleep(random() < 0.5 ? 0 : 1);
  }
  return Promise.all(results);
}

async function expectStored(accounts: readonly Funded[], ref: ReturnType<typeof serialReference>): Promise<void> {
  for (const a of accounts) {
    const doc = await gw.deps.c.accounts.findOne({ _id: a.accountId });
    expect({ balance: doc!.balance, charged: doc!.charged, absorbed: doc!.absorbed }).toEqual({
      balance: ref.balance.get(a.accountId),
      ...ref.totals.get(a.accountId),
    });
    for (const keyId of a.keyIds) {
      expect(await keyLifetimeSpend(gw.deps.c, keyId)).toBe(ref.keySpend.get(keyId) ?? 0n);
    }
  }
  const ids = [...ref.outcomes.keys()];
  const entries = await gw.deps.c.ledger.find({ _id: { $in: ids } }).toArray();
  expect(entries).toHaveLength(ids.length);
  for (const e of entries) expect({ id: e._id, charged: e.charged, absorbed: e.absorbed }).toEqual({ id: e._id, ...ref.outcomes.get(e._id) });
  // Every account's entries (its top-up and all its charges) form one unbroken chain.
  for (const a of accounts) {
    const chain = await verifyLedgerChain(gw.deps.c, a.accountId);
    expect(chain).toMatchObject({ ok: true, entries: await gw.deps.c.ledger.countDocuments({ account_id: a.accountId }) });
  }
}

describe('ledger writer with overlapping commits', () => {
  it('charges concurrently across hot and nearly empty accounts exactly as one after another would', async () => {
    const accounts = [
      await fundedAccount('5', 2),
      await fundedAccount('5'),
      await fundedAccount('0.00002'),
      await fundedAccount('0.00003', 2),
      await fundedAccount('0.001'),
    ];
    const random = prng(7);
    const weights = [0.35, 0.25, 0.15, 0.15, 0.1];
    const charges: ChargeRequest[] = Array.from({ length: 1_500 }, (_, i) => {
      let pick = random();
      let n = 0;
      while (n < weights.length - 1 && pick >= weights[n]!) pick -= weights[n++]!;
      const a = accounts[n]!;
      return {
        requestId: `req_cc_${i}`,
        accountId: a.accountId,
        keyId: a.keyIds[Math.floor(random() * a.keyIds.length)]!,
        model: 'local/echo',
        cost: 1n + BigInt(Math.floor(random() * 3_000)),
        at,
      };
    });
    const watch = new OverlapWatch();
    const writer = new LedgerWriter(gw.deps.mongo.client, gw.deps.c, gw.deps.log, { maxConcurrent: 4, maxBatch: 40, maxDelayMs: 1, parallelAt: 1, observer: watch });

    const outcomes = await sendInBursts(writer, charges, random);
    await writer.drain();

    const ref = serialReference(accounts, charges);
    outcomes.forEach((o, i) => {
      const r = charges[i]!;
      expect({ id: r.requestId, charged: o.charged, absorbed: o.absorbed, duplicate: o.duplicate }).toEqual({ id: r.requestId, ...ref.outcomes.get(r.requestId), duplicate: false });
    });
    await expectStored(accounts, ref);
    // The nearly empty accounts ran dry: the test exercises the balance floor.
    expect(ref.totals.get(accounts[2]!.accountId)!.absorbed).toBeGreaterThan(0n);
    expect(ref.totals.get(accounts[3]!.accountId)!.absorbed).toBeGreaterThan(0n);
    expect(watch.sharedAccount).toBe(false);
    expect(watch.maxInFlight).toBeGreaterThan(1);
    // Balances of several accounts were updated in bulk (one account's in place: next tests).
    expect(watch.wide).toBeGreaterThan(0);
    expect(writer.pending).toBe(0);
  });

  it('never charges twice when the same request ids are replayed concurrently, by one writer or by two processes', async () => {
    const accounts = [await fundedAccount('0.00005'), await fundedAccount('1'), await fundedAccount('1')];
    const random = prng(11);
    const unique: ChargeRequest[] = Array.from({ length: 300 }, (_, i) => {
      const a = accounts[i % accounts.length]!;
      return { requestId: `req_replay_${i}`, accountId: a.accountId, keyId: a.keyIds[0]!, model: 'local/echo', cost: 1n + BigInt(Math.floor(random() * 2_000)), at };
    });
    const watchA = new OverlapWatch();
    // Two writers stand for two web processes settling the same requests (a replayed settle):
    // their transactions on the same account conflict and are retried.
    const writerA = new LedgerWriter(gw.deps.mongo.client, gw.deps.c, gw.deps.log, { maxConcurrent: 4, maxBatch: 25, maxDelayMs: 1, observer: watchA });
    const writerB = new LedgerWriter(gw.deps.mongo.client, gw.deps.c, gw.deps.log, { maxConcurrent: 4, maxBatch: 25, maxDelayMs: 1 });
    const shuffled = [...unique].sort(() => random() - 0.5);
    const [first, again, elsewhere] = await Promise.all([
      sendInBursts(writerA, unique, random),
      sendInBursts(writerA, shuffled, random),
      sendInBursts(writerB, unique, random),
    ]);
    await Promise.all([writerA.drain(), writerB.drain()]);

    // Whichever attempt committed first decided each outcome; every replay reports the same.
    const byId = new Map<string, ChargeOutcome[]>();
    const all = [...first.map((o, i) => [unique[i]!, o] as const), ...again.map((o, i) => [shuffled[i]!, o] as const), ...elsewhere.map((o, i) => [unique[i]!, o] as const)];
    for (const [r, o] of all) byId.set(r.requestId, [...(byId.get(r.requestId) ?? []), o]);
    for (const outcomes of byId.values()) {
      expect(new Set(outcomes.map((o) => `${o.charged}/${o.absorbed}`)).size).toBe(1);
      expect(outcomes.some((o) => !o.duplicate)).toBe(true);
    }
    const entries = await gw.deps.c.ledger.find({ _id: { $in: unique.map((r) => r.requestId) } }).toArray();
    expect(entries).toHaveLength(unique.length);
    for (const a of accounts) {
      const own = entries.filter((e) => e.account_id === a.accountId);
      const doc = await gw.deps.c.accounts.findOne({ _id: a.accountId });
      const charged = own.reduce((s, e) => s + e.charged, 0n);
      const absorbed = own.reduce((s, e) => s + e.absorbed, 0n);
      const cost = unique.filter((r) => r.accountId === a.accountId).reduce((s, r) => s + r.cost, 0n);
      expect({ charged: doc!.charged, absorbed: doc!.absorbed, balance: doc!.balance }).toEqual({ charged, absorbed, balance: a.credit - charged });
      expect(charged + absorbed).toBe(cost);
      expect(doc!.balance >= 0n).toBe(true);
    }
    expect(accounts[0]!.credit).toBe(50_000n);
    expect(watchA.sharedAccount).toBe(false);
  });

  it('reports a replayed request id as a duplicate without voiding the fresh charges of its batch', async () => {
    const f = await fundedAccount('0.000001');
    const charge = (id: string, cost: bigint): ChargeRequest => ({ requestId: id, accountId: f.accountId, keyId: f.keyIds[0]!, model: 'local/echo', cost, at });
    const writer = new LedgerWriter(gw.deps.mongo.client, gw.deps.c, gw.deps.log, { maxDelayMs: 5 });
    const first = await writer.charge(charge('req_dup_1', 600n));
    expect(first).toMatchObject({ cost: 600n, charged: 600n, absorbed: 0n, duplicate: false });
    // A duplicate reports the entry as first committed, its place in the chain included.
    expect(first.hash).toMatch(/^[0-9a-f]{64}$/);
    const [again, fresh, over] = await Promise.all([writer.charge(charge('req_dup_1', 600n)), writer.charge(charge('req_dup_2', 300n)), writer.charge(charge('req_dup_3', 300n))]);
    expect(again).toEqual({ ...first, duplicate: true });
    expect(fresh).toMatchObject({ cost: 300n, charged: 300n, absorbed: 0n, duplicate: false });
    expect(over).toMatchObject({ cost: 300n, charged: 100n, absorbed: 200n, duplicate: false });
    const doc = await gw.deps.c.accounts.findOne({ _id: f.accountId });
    expect({ balance: doc!.balance, charged: doc!.charged, absorbed: doc!.absorbed }).toEqual({ balance: 0n, charged: 1_000n, absorbed: 200n });
    expect(await keyLifetimeSpend(gw.deps.c, f.keyIds[0]!)).toBe(1_200n);
  });

  it('overlaps batches of different accounts and never two batches of one account', async () => {
    const [a, b] = [await fundedAccount('1'), await fundedAccount('1')];
    const charge = (f: Funded, id: string): ChargeRequest => ({ requestId: id, accountId: f.accountId, keyId: f.keyIds[0]!, model: 'local/echo', cost: 10n, at });

    const apart = new OverlapWatch();
    const writer = new LedgerWriter(gw.deps.mongo.client, gw.deps.c, gw.deps.log, { maxConcurrent: 4, maxBatch: 1, observer: apart });
    await Promise.all([writer.charge(charge(a, 'req_ov_a1')), writer.charge(charge(b, 'req_ov_b1'))]);
    expect(apart.batches).toBe(2);
    expect(apart.maxInFlight).toBe(2);

    const together = new OverlapWatch();
    const serial = new LedgerWriter(gw.deps.mongo.client, gw.deps.c, gw.deps.log, { maxConcurrent: 4, maxBatch: 1, observer: together });
    const done = await Promise.all(Array.from({ length: 8 }, (_, i) => serial.charge(charge(a, `req_ov_a_${i}`))));
    expect(done.every((o) => o.charged === 10n && !o.duplicate)).toBe(true);
    expect(together.batches).toBe(8);
    expect(together.maxInFlight).toBe(1);
    expect(together.sharedAccount).toBe(false);

    // A trickle that does not fill `parallelAt` waits for the commit in flight and goes together.
    const trickle = new OverlapWatch();
    const patient = new LedgerWriter(gw.deps.mongo.client, gw.deps.c, gw.deps.log, { maxConcurrent: 4, maxDelayMs: 0, parallelAt: 3, observer: trickle });
    const firstOne = patient.charge(charge(a, 'req_ov_t0'));
    await new Promise((resolve) => setTimeout(resolve, 1));
    await Promise.all([firstOne, patient.charge(charge(b, 'req_ov_t1')), patient.charge(charge(b, 'req_ov_t2'))]);
    expect(trickle.maxInFlight).toBe(1);
    expect(trickle.batches).toBe(2);

    // One slot: the previous behaviour, batches strictly one after another.
    const one = new OverlapWatch();
    const single = new LedgerWriter(gw.deps.mongo.client, gw.deps.c, gw.deps.log, { maxConcurrent: 1, maxBatch: 1, observer: one });
    await Promise.all([single.charge(charge(a, 'req_ov_a2')), single.charge(charge(b, 'req_ov_b2'))]);
    expect(one.maxInFlight).toBe(1);
    expect((await gw.deps.c.accounts.findOne({ _id: a.accountId }))!.balance).toBe(NANO - 11n * 10n);
  });

  it('commits a lone charge after its own last one in three commands, spend buckets included', async () => {
    const f = await fundedAccount('1');
    const watched = new MongoClient(gw.config.mongoUri, { useBigInt64: true, monitorCommands: true });
    const commands: string[] = [];
    watched.on('commandStarted', (e) => void (e.command.lsid !== undefined && commands.push(e.commandName)));
    try {
      const writer = new LedgerWriter(watched, gw.deps.c, gw.deps.log, { maxBatch: 1 });
      const charge = (i: number): ChargeRequest => ({ requestId: `req_lone_${i}`, accountId: f.accountId, keyId: f.keyIds[0]!, model: 'local/echo', cost: 7n, at });
      // The first charge learns the account's head; the second is built on it.
      await writer.charge(charge(1));
      commands.length = 0;
      expect((await writer.charge(charge(2))).charged).toBe(7n);
      expect(commands.filter((c) => c !== 'endSessions')).toEqual(['update', 'insert', 'commitTransaction']);
      // A head moved by someone else (a top-up) costs the guess, never the money.
      await adminClient(gw.url).topup(f.accountId, '1');
      expect((await writer.charge(charge(3))).charged).toBe(7n);
    } finally {
      await watched.close();
    }
    const doc = await gw.deps.c.accounts.findOne({ _id: f.accountId });
    expect({ balance: doc!.balance, charged: doc!.charged }).toEqual({ balance: f.credit + NANO - 21n, charged: 21n });
    expect(await keyLifetimeSpend(gw.deps.c, f.keyIds[0]!)).toBe(21n);
    const day = await gw.deps.c.keySpend.findOne({ _id: `${f.accountId}:${periodOf('day', at)}` });
    expect(day?.amount).toBe(21n);
    expect(await verifyLedgerChain(gw.deps.c, f.accountId)).toMatchObject({ ok: true, entries: 5 });
  });

  it('starts a lone charge at once, sharing its batch only with the charges of the same turn', async () => {
    const f = await fundedAccount('1');
    const charge = (id: string): ChargeRequest => ({ requestId: id, accountId: f.accountId, keyId: f.keyIds[0]!, model: 'local/echo', cost: 10n, at });
    const sizes: number[] = [];
    const writer = new LedgerWriter(gw.deps.mongo.client, gw.deps.c, gw.deps.log, { observer: { batchStarted: (batch) => sizes.push(batch.charges) } });
    const same = [writer.charge(charge('req_turn_1')), writer.charge(charge('req_turn_2'))];
    // Immediates run in the order they were queued: a batch that waited for a timer (for company
    // that is not coming) would not have started by the time this one runs.
    const startedBefore = await new Promise<number>((resolve) => setImmediate(() => resolve(sizes.length)));
    expect(startedBefore).toBe(1);
    await Promise.all(same);
    expect(sizes).toEqual([2]);
  });

  it('reports batch commits, spool depth and age, charges committing and MongoDB writable on /metrics', async () => {
    const f = await fundedAccount('1');
    await gw.deps.ledger.charge({ requestId: 'req_metrics_1', accountId: f.accountId, keyId: f.keyIds[0]!, model: 'local/echo', cost: 5n, at });
    await gw.deps.ledger.settled();
    const { body } = await gw.deps.metrics.render();
    expect(body).toMatch(/^farebox_ledger_commit_seconds_count [1-9]/m);
    expect(body).toMatch(/^farebox_ledger_batch_charges_sum [1-9]/m);
    expect(body).toMatch(/^farebox_ledger_spooled_charges 0$/m);
    expect(body).toMatch(/^farebox_ledger_spool_oldest_seconds 0$/m);
    expect(body).toMatch(/^farebox_ledger_committing_charges 0$/m);
    expect(body).toMatch(/^farebox_mongo_writable 1$/m);
  });
});
