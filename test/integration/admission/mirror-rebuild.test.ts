import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodSpend } from '../../../src/accounts/index.js';
import type { ChargeOutcome, ChargeRequest } from '../../../src/ledger/apply-charges.js';
import { RedisAdmissionTicket } from '../../../src/admission/admission-ticket.js';
import { LeaseRefresher } from '../../../src/admission/lease-refresher.js';
import { readMirrorSnapshot, type MirrorName } from '../../../src/admission/mirror-snapshot.js';
import { MirrorLoader, type MirrorLoaderDeps } from '../../../src/admission/mirrors.js';
import { adminClient } from '../../helpers/admin-client.js';
import { testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { accountWithKey, manualClock, startLimitsGateway, usd } from './limits-fixtures.js';
import { keyLifetimeSpend } from '../../helpers/key-spend.js';

// Each interleaving of a mirror rebuild (MongoDB read, then Redis write) with a settling
// charge (ledger commit, then FINISH) is forced with gates, against real Redis and MongoDB.

const clock = manualClock('2031-06-10T10:00:00.000Z');
type Four = Extract<MirrorName, 'balance' | 'lifetime' | 'day' | 'month'>;
const ALL: Four[] = ['balance', 'lifetime', 'day', 'month'];
const COST = usd(0.0125);
let gw: TestGateway;
let refresher: LeaseRefresher;

beforeAll(async () => {
  gw = await startLimitsGateway({ clock: clock.clock, env: testEnv({ LOG_LEVEL: 'warn' }) });
  const timings = { intervalMs: 60_000, holdTtlMs: 600_000, streamTtlMs: 60_000, containerTtlMs: 1_200_000 };
  refresher = new LeaseRefresher(gw.deps.redis, gw.deps.admission.keyNames, clock.clock, gw.deps.log, timings);
});
afterAll(async () => {
  refresher?.stop();
  await gw?.close();
});

interface Gate {
  readonly wait: Promise<void>;
  open(): void;
}

function gate(): Gate {
  let open = () => undefined as void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

/** Pauses a step between its two halves: `reached` opens at the pause, `release` ends it. */
interface Pause {
  readonly reached: Gate;
  readonly release: Gate;
}

const pause = (): Pause => ({ reached: gate(), release: gate() });

async function setup() {
  const { accountId, keyId } = await accountWithKey(gw.url, 1, { limits: { spend_cap_usd: { lifetime: 10, day: 5, month: 8 } } });
  const key = await gw.deps.c.keys.findOne({ _id: keyId });
  if (!key) throw new Error('key missing');
  return { accountId, keyId, key };
}

/** Whether this run acknowledges charges from the local spool (`LEDGER_ACK=local`). */
const spooledAcks = (): boolean => gw.deps.config.ledgerAck === 'local';

/** A loader as the admission builds one; `readSnapshot` wraps its MongoDB reads. */
function newLoader(readSnapshot?: MirrorLoaderDeps['readSnapshot']): MirrorLoader {
  return new MirrorLoader({
    redis: gw.deps.redis,
    client: gw.deps.mongo.client,
    c: gw.deps.c,
    keys: gw.deps.admission.keyNames,
    settleWindowMs: 600_000,
    spooledAcks: spooledAcks(),
    settled: () => gw.deps.ledger.settled(),
    ...(readSnapshot ? { readSnapshot } : {}),
  });
}

/** A loader whose first MongoDB read can be held after it was taken. */
function loader(afterRead?: Pause): MirrorLoader {
  let first = true;
  return newLoader(async (client, c, q) => {
    const snap = await readMirrorSnapshot(client, c, q);
    if (afterRead && first) {
      first = false;
      afterRead.reached.open();
      await afterRead.release.wait;
    }
    return snap;
  });
}

/**
 * A ticket whose FINISH can be held after its ledger charge committed; `unplaced` hands FINISH
 * the outcome without its chain position, as a charge acknowledged from the spool has none.
 */
function ticket(key: Awaited<ReturnType<typeof setup>>['key'], requestId: string, afterCommit?: Pause, unplaced = false): RedisAdmissionTicket {
  const ledger = {
    async charge(request: ChargeRequest): Promise<ChargeOutcome> {
      const outcome = await gw.deps.ledger.charge(request);
      if (afterCommit) {
        afterCommit.reached.open();
        await afterCommit.release.wait;
      }
      const { seq: _position, ...unplacedOutcome } = outcome;
      return unplaced ? unplacedOutcome : outcome;
    },
  };
  const model = gw.deps.catalog.get('local/echo');
  if (!model) throw new Error('local/echo missing');
  const ctx = { redis: gw.deps.redis, keys: gw.deps.admission.keyNames, ledger, clock: clock.clock, log: gw.deps.log, refresher, unappliedTtlMs: 1_200_000 };
  return new RedisAdmissionTicket(ctx, { requestId, held: COST, key, model });
}

/** The four mirrors as Redis holds them (null = missing). */
async function mirrors(accountId: string, keyId: string): Promise<Record<Four, bigint | null>> {
  const k = gw.deps.admission.keyNames;
  const at = clock.now();
  const names = [k.balance(accountId), k.spendLifetime(accountId, keyId), k.spendDay(accountId, keyId, at), k.spendMonth(accountId, keyId, at)];
  const values = await gw.deps.redis.mget(...names);
  const [balance, lifetime, day, month] = values.map((v) => (v === null ? null : BigInt(v)));
  return { balance: balance ?? null, lifetime: lifetime ?? null, day: day ?? null, month: month ?? null };
}

/** The same four figures as MongoDB holds them. */
async function truth(accountId: string, keyId: string): Promise<Record<Four, bigint>> {
  const { c } = gw.deps;
  await gw.deps.ledger.settled();
  const at = clock.now();
  const spend = await periodSpend(c, keyId, at);
  return {
    balance: (await c.accounts.findOne({ _id: accountId }))?.balance ?? -1n,
    lifetime: await keyLifetimeSpend(c, keyId),
    day: spend.day,
    month: spend.month,
  };
}

async function expectExact(accountId: string, keyId: string, charges: number): Promise<void> {
  const expected = await truth(accountId, keyId);
  // Not vacuous: MongoDB really holds the charges the mirrors must agree with.
  expect(expected).toEqual({ balance: usd(1) - BigInt(charges) * COST, lifetime: BigInt(charges) * COST, day: BigInt(charges) * COST, month: BigInt(charges) * COST });
  expect(await mirrors(accountId, keyId)).toEqual(expected);
}

describe('mirror rebuilds racing settling charges', () => {
  it('counts a charge that settles between the rebuild reading MongoDB and writing Redis (too high before)', async () => {
    const { accountId, keyId, key } = await setup();
    const read = pause();
    const loading = loader(read).load(ALL, accountId, keyId, clock.now());
    await read.reached.wait;
    await ticket(key, 'req_mr_a_x').settle(COST, {});
    read.release.open();
    await loading;
    await expectExact(accountId, keyId, 1);
  });

  it('does not count twice a charge the rebuild read whose FINISH runs after it (too low before)', async () => {
    const { accountId, keyId, key } = await setup();
    const commit = pause();
    const settling = ticket(key, 'req_mr_b_x', commit).settle(COST, {});
    await commit.reached.wait;
    await loader().load(ALL, accountId, keyId, clock.now());
    commit.release.open();
    await settling;
    await expectExact(accountId, keyId, 1);
  });

  it('handles both at once, plus a charge settled before the rebuild and a repeated settlement', async () => {
    const { accountId, keyId, key } = await setup();
    await ticket(key, 'req_mr_c_before').settle(COST, {});
    const commit = pause();
    const early = ticket(key, 'req_mr_c_early', commit).settle(COST, {});
    await commit.reached.wait;
    const read = pause();
    const loading = loader(read).load(ALL, accountId, keyId, clock.now());
    await read.reached.wait;
    await ticket(key, 'req_mr_c_late').settle(COST, {});
    read.release.open();
    await loading;
    commit.release.open();
    await early;
    // A retried settlement of an applied charge changes nothing (ledger and mirrors).
    await ticket(key, 'req_mr_c_late').settle(COST, {});
    await expectExact(accountId, keyId, 3);
  });

  it('applies charges to existing mirrors and rebuilds from charges settled while they were missing', async () => {
    const { accountId, keyId, key } = await setup();
    await ticket(key, 'req_mr_d_1').settle(COST, {});
    expect(await mirrors(accountId, keyId)).toEqual({ balance: null, lifetime: null, day: null, month: null });
    await loader().load(ALL, accountId, keyId, clock.now());
    await expectExact(accountId, keyId, 1);
    await ticket(key, 'req_mr_d_2').settle(COST, {});
    await expectExact(accountId, keyId, 2);
  });

  it('does not store a balance read before a top-up that invalidated the mirror', async () => {
    const { accountId, keyId, key } = await setup();
    const read = pause();
    const rebuild = loader(read);
    const loading = rebuild.load(['balance'], accountId, keyId, clock.now());
    await read.reached.wait;
    expect((await adminClient(gw.url).topup(accountId, 0.5)).status).toBe(201);
    await rebuild.invalidateBalance(accountId);
    read.release.open();
    await loading;
    expect((await mirrors(accountId, keyId)).balance).toBe(usd(1.5));
    await ticket(key, 'req_mr_e_1').settle(COST, {});
    expect((await mirrors(accountId, keyId)).balance).toBe(usd(1.5) - COST);
    expect((await truth(accountId, keyId)).balance).toBe(usd(1.5) - COST);
  });

  it('serves a burst of loads of the same mirrors with one MongoDB read', async () => {
    const { accountId, keyId, key } = await setup();
    await ticket(key, 'req_mr_g_1').settle(COST, {});
    let reads = 0;
    const counting = newLoader((client, c, q) => {
      reads += 1;
      return readMirrorSnapshot(client, c, q);
    });
    // Each read is a snapshot transaction (under `local`, listing the settle window's
    // charges): a busy account's burst must not run it once per request.
    await Promise.all(Array.from({ length: 20 }, () => counting.load(ALL, accountId, keyId, clock.now())));
    expect(reads).toBe(1);
    await expectExact(accountId, keyId, 1);
    // Another set of mirrors is another load.
    await counting.invalidateBalance(accountId);
    await Promise.all([counting.load(['balance'], accountId, keyId, clock.now()), counting.load(['balance'], accountId, keyId, clock.now())]);
    expect(reads).toBe(2);
    await expectExact(accountId, keyId, 1);
  });

  it('rebuilds a busy account without listing its recent charges, unless charges are acknowledged from the spool', async () => {
    const { accountId, keyId, key } = await setup();
    await loader().load(ALL, accountId, keyId, clock.now());
    for (let i = 0; i < 12; i++) await ticket(key, `req_mr_h_${i}`).settle(COST, {});
    await expectExact(accountId, keyId, 12);
    const listed: number[] = [];
    const listing = newLoader(async (client, c, q) => {
      const snap = await readMirrorSnapshot(client, c, q);
      listed.push(snap.chargeIds.length);
      return snap;
    });
    await listing.invalidateBalance(accountId);
    await listing.load(['balance'], accountId, keyId, clock.now());
    // Under `local` a FINISH has no chain position to compare, so the window's ids are listed.
    expect(listed).toEqual([spooledAcks() ? 12 : 0]);
    await ticket(key, 'req_mr_h_last').settle(COST, {});
    await expectExact(accountId, keyId, 13);
  });

  it('counts once a charge whose FINISH has no chain position, whatever the mirror knows', async () => {
    const { accountId, keyId, key } = await setup();
    await loader().load(ALL, accountId, keyId, clock.now());
    await ticket(key, 'req_mr_i_1', undefined, true).settle(COST, {});
    const after = await mirrors(accountId, keyId);
    if (spooledAcks()) {
      // The rebuild listed its window: the charge is not among its ids, so the mirror takes it.
      await expectExact(accountId, keyId, 1);
    } else {
      // Committed, but FINISH cannot say where: the mirror cannot tell whether it counted it.
      expect(after).toEqual({ balance: null, lifetime: null, day: null, month: null });
      await loader().load(ALL, accountId, keyId, clock.now());
      await expectExact(accountId, keyId, 1);
    }
    // A FINISH held past a rebuild that read its charge, again without a position.
    const commit = pause();
    const settling = ticket(key, 'req_mr_i_2', commit, true).settle(COST, {});
    await commit.reached.wait;
    await gw.deps.ledger.settled();
    await loader().invalidateBalance(accountId);
    await loader().load(['balance'], accountId, keyId, clock.now());
    commit.release.open();
    await settling;
    await loader().load(ALL, accountId, keyId, clock.now());
    await expectExact(accountId, keyId, 2);
  });

  it('places a charge settled long before the rebuild by looking its id up', async () => {
    const { accountId, keyId, key } = await setup();
    const now = clock.now();
    clock.set(new Date(now.getTime() - 3_600_000)); // older than the window of recent charges
    await ticket(key, 'req_mr_f_old').settle(COST, {});
    clock.set(now);
    await loader().load(ALL, accountId, keyId, clock.now());
    // The day and month figures are read for today; the old charge fell in the same day.
    await expectExact(accountId, keyId, 1);
  });
});
