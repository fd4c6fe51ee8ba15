import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyDoc } from '../../../src/accounts/keys/key-types.js';
import { SPEND_MIRRORS } from '../../../src/billing/index.js';
import { AdmissionKeys } from '../../../src/admission/admission-keys.js';
import { runFinish, type FinishScope } from '../../../src/admission/admission-ticket.js';
import type { AdmissionTicket } from '../../../src/admission/admission-types.js';
import type { AdmitLimits } from '../../../src/admission/admit-limits.js';
import { defineScripts } from '../../../src/admission/lua-commands.js';
import { spendMirrorKey } from '../../../src/admission/script-keys.js';
import { Slice } from '../../../src/admission/slice.js';
import { SliceFlusher } from '../../../src/admission/slice-flusher.js';
import type { ChargeOutcome } from '../../../src/ledger/apply-charges.js';
import { createLogger } from '../../../src/platform/log/logger.js';
import { createRedis, waitReady, type Redis } from '../../../src/platform/redis/redis.js';
import { newId } from '../../../src/platform/util/ids.js';
import { testRedisUrl, uniqueName } from '../../setup/test-context.js';

// Charges settled from slices reach Redis through SliceFlusher. Each scenario runs twice on
// identical state, under two accounts: once as one FINISH per charge (the reference), once
// through the flusher; the two accounts' Redis state must then be the same, key for key, but
// for the markers (one per request there, one per batch here).

const prefix = uniqueName('slicech');
const keys = new AdmissionKeys(prefix);
const AT = new Date('2031-06-10T10:00:00.000Z');
const UNAPPLIED_TTL_MS = 600_000;
const KEY = 'key_sc';
const END_USER = 'eu1';
const SLICE = 'slice_test_1';
const SLICE_SIZE = 1_000n;
/** Tracked: the key's lifetime and day caps, the account's month cap, the end user's day cap. */
const LIMITS: AdmitLimits = { caps: [10n, 5n, undefined, undefined, undefined, undefined, 8n, 3n, undefined, undefined], tpm: [undefined, undefined, undefined], endUser: END_USER };
const log = createLogger('silent');

let redis: Redis;
/** The flusher's own connection, whose commands are counted. */
let flusherRedis: Redis;
let sent: string[] = [];

beforeAll(async () => {
  redis = createRedis(testRedisUrl(), prefix);
  flusherRedis = createRedis(testRedisUrl(), `${prefix}-flusher`);
  await Promise.all([waitReady(redis), waitReady(flusherRedis)]);
  const send = flusherRedis.sendCommand.bind(flusherRedis);
  flusherRedis.sendCommand = ((command: { name: string }, ...rest: unknown[]) => {
    sent.push(command.name);
    return (send as (...args: unknown[]) => unknown)(command, ...rest);
  }) as typeof flusherRedis.sendCommand;
});
afterAll(async () => {
  const stale = await redis.keys(`${prefix}:*`);
  if (stale.length > 0) await redis.del(...stale);
  redis?.disconnect();
  flusherRedis?.disconnect();
});

function keyDoc(accountId: string, keyId = KEY): KeyDoc {
  return { _id: keyId, account_id: accountId, limits: {} } as unknown as KeyDoc;
}

function scopeOf(accountId: string, requestId: string, keyId = KEY): FinishScope {
  return { requestId, key: keyDoc(accountId, keyId), limits: LIMITS, endUserTag: END_USER };
}

function outcome(cost: bigint, charged = cost, seq?: number): ChargeOutcome {
  return { cost, charged, absorbed: 0n, duplicate: false, ...(seq === undefined ? {} : { seq }) };
}

/** What a charge is: its request, its outcome, and when it settled. */
interface Charge {
  readonly requestId: string;
  readonly outcome: ChargeOutcome;
  readonly keyId?: string;
  readonly at?: Date;
}

/** The tracked mirrors of an account at AT: balance, key lifetime, key day, account month, end-user day. */
function mirrorNames(accountId: string, keyId = KEY, at = AT) {
  const s = { accountId, keyId, requestId: '', at, endUser: END_USER };
  const spend = (name: string) => spendMirrorKey(keys, s, SPEND_MIRRORS.find((m) => m.name === name)!);
  return { bal: keys.balance(accountId), life: spend('lifetime'), day: spend('day'), month: spend('account:month'), user: spend('user:day') };
}

/** A slice hold of SLICE_SIZE under the account's current generation, as the exact path places one. */
async function placeSlice(accountId: string, size = SLICE_SIZE): Promise<void> {
  const holder = `${KEY}|${END_USER}`;
  await redis.zadd(keys.holds(accountId), Date.now() + 600_000, SLICE);
  await redis.hset(keys.holdInfo(accountId), SLICE, `${size}:${holder}`);
  await redis.incrby(keys.heldTotal(accountId), Number(size));
  await redis.hincrby(keys.keyHeld(accountId), KEY, Number(size));
  await redis.hincrby(keys.keyHeld(accountId), holder, Number(size));
}

/** Every mirror present, each rebuilt with a chain head of 5 (so positions above it apply). */
async function seedPlain(accountId: string): Promise<void> {
  for (const mirror of Object.values(mirrorNames(accountId))) {
    await redis.set(mirror, '1000');
    await redis.hset(keys.unapplied(mirror), '#head', '5');
  }
  await placeSlice(accountId);
}

/**
 * State that exercises every rule of FINISH: a balance rebuilt to head 5, a lifetime mirror
 * rebuilt from a listed window (one spooled charge baked in), a day mirror missing, an account
 * month mirror that cannot tell (dropped), an end-user mirror rebuilt to head 7; a hold and a
 * stream slot under a charge's own request id.
 */
async function seedMixed(accountId: string): Promise<void> {
  const m = mirrorNames(accountId);
  await redis.set(m.bal, '1000000');
  await redis.hset(keys.unapplied(m.bal), '#head', '5');
  await redis.set(m.life, '200');
  await redis.hset(keys.unapplied(m.life), '#window', '1');
  await redis.sadd(keys.baked(m.life), 'r_spooled');
  await redis.set(m.month, '300');
  await redis.set(m.user, '50');
  await redis.hset(keys.unapplied(m.user), '#head', '7');
  await placeSlice(accountId);
  await redis.zadd(keys.holds(accountId), Date.now() + 600_000, 'r_stray');
  await redis.hset(keys.holdInfo(accountId), 'r_stray', `40:${KEY}`);
  await redis.incrby(keys.heldTotal(accountId), 40);
  await redis.hincrby(keys.keyHeld(accountId), KEY, 40);
  await redis.zadd(keys.streams(accountId, KEY), Date.now() + 600_000, 'r_stray');
}

const MIXED: Charge[] = [
  { requestId: 'r1', outcome: outcome(100n, 100n, 6) },
  // The balance floored: less left it than the cost.
  { requestId: 'r2', outcome: outcome(30n, 20n, 8) },
  // Only spooled: no chain position.
  { requestId: 'r_spooled', outcome: outcome(7n) },
  { requestId: 'r_stray', outcome: outcome(40n, 40n, 10) },
  { requestId: 'r_zero', outcome: outcome(0n, 0n, 11) },
];

/** Everything Redis holds for an account, with the account's id replaced, keys sorted. */
async function dump(accountId: string): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const found = await redis.keys(`${prefix}:*{${accountId}}*`);
  for (const key of found.sort()) {
    const type = await redis.type(key);
    let value: unknown;
    if (type === 'string') value = await redis.get(key);
    else if (type === 'hash') value = Object.fromEntries(Object.entries(await redis.hgetall(key)).sort());
    else if (type === 'set') value = (await redis.smembers(key)).sort();
    else if (type === 'zset') value = await redis.zrange(key, '0', '-1');
    else value = type;
    const ttl = await redis.pttl(key);
    out[key.replaceAll(accountId, 'ACCOUNT')] = { type, value, expires: ttl > 0 };
  }
  return out;
}

const MARKER = /:applied(-batch)?:/;

/** An account's Redis state but for the applied markers. */
async function dumpUnmarked(accountId: string): Promise<Record<string, unknown>> {
  return Object.fromEntries(Object.entries(await dump(accountId)).filter(([key]) => !MARKER.test(key)));
}

/** The applied markers of an account: per request (FINISH) and per batch (the flusher). */
async function markers(accountId: string): Promise<{ requests: string[]; batches: string[] }> {
  const found = await redis.keys(`${prefix}:*{${accountId}}*`);
  const after = (kind: string) => found.filter((key) => key.includes(`:${kind}:`)).map((key) => key.slice(key.indexOf(`:${kind}:`) + kind.length + 2)).sort();
  return { requests: after('applied'), batches: after('applied-batch') };
}

function flusher(): SliceFlusher {
  return new SliceFlusher({ redis: flusherRedis, keys, unappliedTtlMs: UNAPPLIED_TTL_MS }, { ready: async () => undefined }, log);
}

function sliceOf(accountId: string, released?: () => Promise<unknown>): Slice {
  const release = async () => {
    await released?.();
  };
  const ticket = { requestId: SLICE, held: SLICE_SIZE, settle: () => Promise.reject(new Error('not used')), release } as AdmissionTicket;
  return new Slice(SLICE, SLICE_SIZE, ticket, Date.now(), { accountId, keyId: KEY, endUser: END_USER });
}

/** The reference: one FINISH per charge, in order, as each was sent before charges were batched. */
async function finishEach(accountId: string, charges: readonly Charge[], shrink = SLICE): Promise<void> {
  for (const c of charges) await runFinish({ redis, keys, unappliedTtlMs: UNAPPLIED_TTL_MS }, scopeOf(accountId, c.requestId, c.keyId), c.outcome, c.at ?? AT, -1, shrink);
}

/** Queues the charges on a flusher in one go (one flush) and waits until they reached Redis. */
async function flushTogether(f: SliceFlusher, accountId: string, charges: readonly Charge[], slice = sliceOf(accountId)): Promise<void> {
  for (const c of charges) f.apply(scopeOf(accountId, c.requestId, c.keyId), c.outcome, c.at ?? AT, slice);
  await f.drain(10_000);
  expect(f.pending).toBe(0);
}

const scriptCalls = () => sent.filter((name) => name === 'evalsha' || name === 'eval').length;
const bigint = async (key: string) => BigInt((await redis.get(key)) ?? 'NaN');
const heldOf = async (accountId: string, id: string) => (await redis.hget(keys.holdInfo(accountId), id))?.split(':')[0];

describe('charges settled from slices, carried to Redis', () => {
  it('two charges of one scope flushed together: each reaches every mirror once, the slice shrinks by their sum, in one script call under one marker', async () => {
    const accountId = newId('acct');
    await seedPlain(accountId);
    const f = flusher();
    sent = [];
    await flushTogether(f, accountId, [
      { requestId: 'a1', outcome: outcome(120n, 120n, 6) },
      { requestId: 'a2', outcome: outcome(80n, 80n, 7) },
    ]);
    expect(scriptCalls()).toBe(1);
    const m = mirrorNames(accountId);
    expect(await bigint(m.bal)).toBe(1000n - 200n);
    for (const mirror of [m.life, m.day, m.month, m.user]) expect(await bigint(mirror)).toBe(1000n + 200n);
    expect(await heldOf(accountId, SLICE)).toBe(String(SLICE_SIZE - 200n));
    expect(await redis.get(keys.heldTotal(accountId))).toBe(String(SLICE_SIZE - 200n));
    expect(await redis.hget(keys.keyHeld(accountId), `${KEY}|${END_USER}`)).toBe(String(SLICE_SIZE - 200n));
    const { requests, batches } = await markers(accountId);
    expect(requests).toEqual([]);
    expect(batches).toHaveLength(1);
    expect(await redis.pttl(keys.appliedBatch(accountId, batches[0] as string))).toBeGreaterThan(3_600_000);
  });

  it('a batch whose reply was lost after it landed is sent again whole, and applies once', async () => {
    const [reference, batched] = [newId('acct'), newId('acct')];
    await Promise.all([seedMixed(reference), seedMixed(batched)]);
    await finishEach(reference, MIXED);
    defineScripts(flusherRedis);
    const target = flusherRedis as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const original = target.fareboxApplySliceCharges;
    expect(original).toBeTypeOf('function');
    const calls: unknown[][] = [];
    target.fareboxApplySliceCharges = async function (this: unknown, ...args: unknown[]) {
      calls.push(args);
      const reply = await original!.apply(this, args);
      if (calls.length === 1) throw new Error('connection lost');
      return reply;
    };
    try {
      const f = flusher();
      for (const c of MIXED) f.apply(scopeOf(batched, c.requestId), c.outcome, AT, sliceOf(batched));
      await f.drain(10_000);
      expect(f.pending).toBe(0);
    } finally {
      target.fareboxApplySliceCharges = original!;
    }
    // Sent twice, the same call both times, and landed once.
    expect(calls).toHaveLength(2);
    expect(calls[1]).toEqual(calls[0]);
    expect(await dumpUnmarked(batched)).toEqual(await dumpUnmarked(reference));
    expect((await markers(batched)).batches).toHaveLength(1);
  });

  it('leaves Redis exactly as one FINISH per charge does: positions, baked ids, missing and dropped mirrors, stray holds', async () => {
    const [reference, batched] = [newId('acct'), newId('acct')];
    await Promise.all([seedMixed(reference), seedMixed(batched)]);
    await finishEach(reference, MIXED);
    sent = [];
    await flushTogether(flusher(), batched, MIXED);
    expect(scriptCalls()).toBe(1);
    expect(await dumpUnmarked(batched)).toEqual(await dumpUnmarked(reference));
    // What that state is: r1, r2, r_spooled, r_stray and r_zero applied once. The lifetime
    // mirror took all but the spooled charge it baked in. The spooled charge, without a
    // position, dropped the balance and end-user mirrors (rebuilt to a head only), so it and
    // r_stray wait there as unapplied; the account's month (no rebuild state) was dropped by the
    // first charge and the day mirror was missing: all four wait there. The slice took r1, r2,
    // r_spooled and r_stray; the stray hold and slot are gone.
    const m = mirrorNames(batched);
    expect(await bigint(m.life)).toBe(200n + 100n + 30n + 40n);
    expect(await redis.exists(m.bal, m.month, m.day, m.user)).toBe(0);
    for (const mirror of [m.bal, m.user]) expect(Object.keys(await redis.hgetall(keys.unapplied(mirror))).sort()).toEqual(['#head', 'r_spooled', 'r_stray']);
    for (const mirror of [m.day, m.month]) expect(Object.keys(await redis.hgetall(keys.unapplied(mirror))).sort()).toEqual(['r1', 'r2', 'r_spooled', 'r_stray']);
    expect(await heldOf(batched, SLICE)).toBe(String(SLICE_SIZE - 177n));
    expect(await redis.get(keys.heldTotal(batched))).toBe(String(SLICE_SIZE - 177n));
    expect(await redis.hexists(keys.holdInfo(batched), 'r_stray')).toBe(0);
    expect(await redis.zscore(keys.streams(batched, KEY), 'r_stray')).toBeNull();
    expect(await markers(reference)).toEqual({ requests: ['r1', 'r2', 'r_spooled', 'r_stray', 'r_zero'], batches: [] });
    expect((await markers(batched)).requests).toEqual([]);
  });

  it('a charge settled in an older Redis generation applies to the new one\'s mirrors without shrinking the slice placed again there', async () => {
    const [reference, batched] = [newId('acct'), newId('acct')];
    const charges: Charge[] = [
      { requestId: 'g1', outcome: outcome(100n, 100n, 6) },
      { requestId: 'g2', outcome: outcome(50n) },
    ];
    const f = flusher();
    const slice = sliceOf(batched);
    const generation = keys.generation;
    const next = `${generation}-next`;
    try {
      // The next generation, as Redis will have it once rewound: the slice placed again at its
      // size, no mirror rebuilt yet.
      keys.generation = next;
      await Promise.all([placeSlice(reference), placeSlice(batched)]);
      keys.generation = generation;
      // Settled under the current generation, and Redis rewound before the flush ran.
      for (const c of charges) f.apply(scopeOf(batched, c.requestId), c.outcome, AT, slice);
      keys.generation = next;
      await f.drain(10_000);
      await finishEach(reference, charges, '');
      expect(await dumpUnmarked(batched)).toEqual(await dumpUnmarked(reference));
      expect(await heldOf(batched, SLICE)).toBe(String(SLICE_SIZE));
      const m = mirrorNames(batched);
      expect(await redis.hget(keys.unapplied(m.bal), 'g1')).toBe(`-100:${AT.getTime()}:6`);
      expect(await redis.hget(keys.unapplied(m.life), 'g2')).toBe(`50:${AT.getTime()}:`);
    } finally {
      keys.generation = generation;
    }
  });

  it('one script call per scope and per batch of charges: other keys, other days and long queues are split', async () => {
    const accountId = newId('acct');
    await seedPlain(accountId);
    const f = flusher();
    const nextDay = new Date(AT.getTime() + 86_400_000);
    sent = [];
    await flushTogether(f, accountId, [
      ...Array.from({ length: 10 }, (_, i) => ({ requestId: `s${i}`, outcome: outcome(1n, 1n, 10 + i) })),
      ...Array.from({ length: 3 }, (_, i) => ({ requestId: `o${i}`, outcome: outcome(1n, 1n, 30 + i), keyId: 'key_other' })),
      ...Array.from({ length: 2 }, (_, i) => ({ requestId: `d${i}`, outcome: outcome(1n, 1n, 40 + i), at: nextDay })),
    ]);
    expect(scriptCalls()).toBe(3);
    const m = mirrorNames(accountId);
    // The balance and the account's month take all fifteen; the key's day only today's ten.
    expect(await bigint(m.bal)).toBe(1000n - 15n);
    expect(await bigint(m.month)).toBe(1000n + 15n);
    expect(await bigint(m.day)).toBe(1000n + 10n);
    expect(await bigint(m.life)).toBe(1000n + 12n);
    expect(await heldOf(accountId, SLICE)).toBe(String(SLICE_SIZE - 15n));
    sent = [];
    await flushTogether(f, accountId, Array.from({ length: 150 }, (_, i) => ({ requestId: `l${i}`, outcome: outcome(1n, 1n, 100 + i) })));
    // Batches of 64 charges: 64, 64 and 22.
    expect(scriptCalls()).toBe(3);
    expect(await bigint(m.bal)).toBe(1000n - 165n);
    expect(await heldOf(accountId, SLICE)).toBe(String(SLICE_SIZE - 165n));
  });

  it('a batch that fails is sent again, in order, and only then is its slice released; other batches land once', async () => {
    const [failing, other] = [newId('acct'), newId('acct')];
    await Promise.all([seedPlain(failing), seedPlain(other)]);
    defineScripts(flusherRedis);
    const target = flusherRedis as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const original = target.fareboxApplySliceCharges;
    expect(original).toBeTypeOf('function');
    const calls = { failing: 0, other: 0 };
    target.fareboxApplySliceCharges = function (this: unknown, ...args: unknown[]) {
      const ofFailing = args.some((a) => typeof a === 'string' && a.includes(`{${failing}}`));
      if (ofFailing && calls.failing++ === 0) return Promise.reject(new Error('connection lost'));
      if (!ofFailing) calls.other++;
      return original!.apply(this, args);
    };
    try {
      const f = flusher();
      let landedAtRelease: string | null = null;
      const slice = sliceOf(failing, async () => (landedAtRelease = await redis.get(mirrorNames(failing).bal)));
      for (const [id, seq] of [['f1', 6], ['f2', 7]] as const) f.apply(scopeOf(failing, id), outcome(10n, 10n, seq), AT, slice);
      f.apply(scopeOf(other, 'x1'), outcome(5n, 5n, 6), AT, sliceOf(other));
      const released = f.release(slice);
      await f.drain(10_000);
      await released;
      expect(calls).toEqual({ failing: 2, other: 1 });
      expect(await bigint(mirrorNames(failing).bal)).toBe(1000n - 20n);
      expect(await bigint(mirrorNames(other).bal)).toBe(1000n - 5n);
      expect(landedAtRelease).toBe('980');
    } finally {
      target.fareboxApplySliceCharges = original!;
    }
  });

  it('charges settled over several turns of the loop share one script call; a release goes without waiting', async () => {
    const accountId = newId('acct');
    await seedPlain(accountId);
    const f = flusher();
    const slice = sliceOf(accountId);
    sent = [];
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    for (const [i, cost] of [100n, 50n, 25n].entries()) {
      f.apply(scopeOf(accountId, `t${i}`), outcome(cost, cost, 6 + i), AT, slice);
      await turn();
      await turn();
    }
    // Sent now if still gathering; resolves once the call came back (a flush empties the queue
    // before its call does).
    await f.drain(10_000);
    expect(f.pending).toBe(0);
    expect(scriptCalls()).toBe(1);
    expect(await bigint(mirrorNames(accountId).bal)).toBe(1000n - 175n);
    // A release does not wait out the gathering: it is sent within a few turns, not 100 ms.
    let released = false;
    void f.release(slice).then(() => (released = true));
    for (let i = 0; i < 20 && !released; i++) await turn();
    expect(released).toBe(true);
  });
});
