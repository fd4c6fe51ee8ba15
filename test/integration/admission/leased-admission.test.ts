import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeasedAdmission } from '../../../src/admission/index.js';
import { testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { waitFor } from '../../helpers/wait-for.js';
import { accountWithKey, charge, startLimitsGateway, usd } from './limits-fixtures.js';
import { privateRedis, type PrivateRedis } from './private-redis.js';

/**
 * Leased admission (ADMISSION=leased) on a Redis of the test's own, which it pauses and kills:
 * three in-process gateways stand for three web processes sharing it.
 */
const SLICE_TTL_MS = 6_000;
let redis: PrivateRedis;
let env: Record<string, string>;
const gws: TestGateway[] = [];

beforeAll(async () => {
  redis = await privateRedis();
  env = testEnv({ LOG_LEVEL: 'error', REDIS_URL: redis.url, ADMISSION: 'leased', SLICE_TTL_MS: String(SLICE_TTL_MS), SLICE_IDLE_MS: '400' });
  for (let i = 0; i < 3; i++) gws.push(await startLimitsGateway({ env }));
}, 120_000);
afterAll(async () => {
  for (const gw of gws) await gw.close();
  await redis?.stop();
});

const leased = (gw: TestGateway) => gw.deps.admission as LeasedAdmission;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The ledger's charges of an account, once every acknowledged charge is in MongoDB. */
async function charges(accountId: string) {
  const gw = gws[0]!;
  await gw.deps.ledger.settled();
  return gw.deps.c.ledger.find({ account_id: accountId, kind: 'charge' }).toArray();
}

/**
 * Two gateways of their own, with a second of idleness before a slice goes back, one of them
 * deaf to hand-back requests, and an account whose key has a lifetime cap of eight units.
 */
async function deafAndOther() {
  const slow = testEnv({ ...env, SLICE_IDLE_MS: '1000' });
  const [deaf, other] = [await startLimitsGateway({ env: slow }), await startLimitsGateway({ env: slow })];
  gws.push(deaf, other);
  await deaf.deps.bus.close();
  const account = await accountWithKey(other.url, 1, { limits: { spend_cap_usd: { lifetime: 0.008 } } });
  return { deaf, other, ...account };
}

describe('leased admission', () => {
  it('answers a ticket at once from a held slice, and a refusal always as a rejected promise', async () => {
    const gw = gws[0]!;
    const { raw } = await accountWithKey(gw.url, 1);
    expect((await charge(gw.url, raw, { estimate: usd(0.001), cost: usd(0.0005) })).status).toBe(200);
    const key = await gw.deps.keyAuth.authenticate(raw);
    const model = gw.deps.catalog.get('local/echo')!;
    const authorized = await leased(gw).authorize(key, model);
    const request = { requestId: `req_sync_${Date.now()}`, key, model, authorized, estimate: usd(0.001), stream: false };
    const ticket = leased(gw).admit(request);
    expect(ticket).not.toBeInstanceOf(Promise);
    expect((await ticket).held).toBe(usd(0.001));
    await (await ticket).release();
    // A failure on the way (here a request-rate check that throws when read) is not thrown at the caller.
    const rate = Object.defineProperty({}, 'pending', { get: () => { throw new Error('broken rate check'); } });
    let answer: unknown;
    expect(() => (answer = leased(gw).admit({ ...request, requestId: `${request.requestId}_2`, rate } as never))).not.toThrow();
    await expect(answer).rejects.toThrow('broken rate check');
  });

  it('admits from a held slice while Redis answers nothing: no round trip on the request\'s path', async () => {
    const gw = gws[0]!;
    const { accountId, raw } = await accountWithKey(gw.url, 1);
    expect((await charge(gw.url, raw, { estimate: usd(0.001), cost: usd(0.0005) })).status).toBe(200);
    expect(leased(gw).slices().some((s) => s.owner.accountId === accountId)).toBe(true);
    const pauser = new Redis(redis.url);
    const pauseMs = 1_500;
    await pauser.client('PAUSE', pauseMs, 'ALL');
    const paused = Date.now();
    const answered: number[] = [];
    const results = await Promise.all(Array.from({ length: 3 }, () => charge(gw.url, raw, { estimate: usd(0.001), cost: usd(0.0005) }).then((r) => (answered.push(Date.now()), r))));
    pauser.disconnect();
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    // Answered before Redis took a command again.
    for (const at of answered) expect(at - paused).toBeLessThan(pauseMs);
    // And the charges reach the mirrors once it does.
    expect(await charges(accountId)).toHaveLength(4);
  });

  it('never goes over a cap or the balance across three processes, and refusals name the limit', async () => {
    const estimate = usd(0.001);
    const { accountId, raw } = await accountWithKey(gws[0]!.url, 0.05, { limits: { spend_cap_usd: { day: 0.01 } } });
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => charge(gws[i % 3]!.url, raw, { estimate, cost: estimate, delay_ms: 5 + (i % 4) * 5 })));
    const admitted = results.filter((r) => r.status === 200);
    for (const r of results.filter((r) => r.status !== 200)) {
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('key_limit_exceeded');
      expect(r.body.error.message).toContain('daily');
    }
    const entries = await charges(accountId);
    expect(entries).toHaveLength(admitted.length);
    expect(entries.reduce((t, e) => t + e.cost, 0n)).toBeLessThanOrEqual(usd(0.01));
    expect(admitted.length).toBeGreaterThan(0);
    // The same holds for a balance of ten holds, on every process's slices together.
    const poor = await accountWithKey(gws[0]!.url, 0.01);
    const spent = await Promise.all(Array.from({ length: 60 }, (_, i) => charge(gws[i % 3]!.url, poor.raw, { estimate, cost: estimate, delay_ms: 10 })));
    for (const r of spent.filter((r) => r.status !== 200)) expect(r.body.error.code).toBe('insufficient_credits');
    const poorCharges = await charges(poor.accountId);
    expect(poorCharges.reduce((t, e) => t + e.charged, 0n)).toBeLessThanOrEqual(usd(0.01));
    expect(poorCharges).toHaveLength(spent.filter((r) => r.status === 200).length);
  });

  it('hands a slice back when another process is refused near the limit, or once it is idle', async () => {
    const [a, b] = [gws[0]!, gws[1]!];
    const estimate = usd(0.001);
    const { raw } = await accountWithKey(a.url, 1, { limits: { spend_cap_usd: { lifetime: 0.008 } } });
    // A takes a slice of four holds and spends one.
    expect((await charge(a.url, raw, { estimate, cost: estimate })).status).toBe(200);
    // B's burst needs what A's slice still holds.
    const burst = await Promise.all(Array.from({ length: 6 }, () => charge(b.url, raw, { estimate, cost: estimate })));
    const refusedAt = Date.now();
    const refused = burst.filter((r) => r.status !== 200).length;
    let admittedAt = refusedAt;
    await waitFor('B to be admitted once A\'s slice is back', async () => {
      if (refused === 0) return true;
      const r = await charge(b.url, raw, { estimate, cost: estimate });
      admittedAt = Date.now();
      return r.status === 200;
    }, { timeoutMs: 5_000, intervalMs: 50 });
    // Idle for SLICE_IDLE_MS (400 ms), swept within a quarter of it: well inside a second.
    expect(admittedAt - refusedAt).toBeLessThan(2_000);
  });

  it('decides a refusal again until a slice held by a process that missed the hand-back is idle and back', async () => {
    const { deaf, other, accountId, raw } = await deafAndOther();
    const estimate = usd(0.001);
    // Slices of two holds: the deaf process spends one unit of the cap of eight.
    expect((await charge(deaf.url, raw, { estimate, cost: estimate })).status).toBe(200);
    // Its slice stays in use for half a second, costs nothing, and goes back only once idle after
    // that (a second, plus up to a quarter second until the sweep): inside the three idle periods
    // a refusal is decided again for, with over a second to spare on a loaded machine.
    const running = charge(deaf.url, raw, { estimate, cost: 0n, delay_ms: 500 });
    await waitFor('the deaf process to admit it', () => leased(deaf).slices().some((s) => s.running > 0), { timeoutMs: 5_000, intervalMs: 5 });
    const burst = await Promise.all(Array.from({ length: 7 }, () => charge(other.url, raw, { estimate, cost: estimate })));
    expect((await running).status).toBe(200);
    // Seven units are left, and the room parked in the deaf process's slices comes back in time.
    expect(burst.map((r) => r.status)).toEqual(Array(7).fill(200));
    expect((await charges(accountId)).reduce((t, e) => t + e.cost, 0n)).toBe(usd(0.008));
  });

  it('keeps deciding a refusal again for a request that arrives once its holder is on the exact path', async () => {
    const { deaf, other, accountId, raw } = await deafAndOther();
    const estimate = usd(0.001);
    // The deaf process's slice of two units: one spent on nothing, then one in use for half a
    // second; both units come back only once it is idle (see the test above).
    expect((await charge(deaf.url, raw, { estimate, cost: 0n })).status).toBe(200);
    const running = charge(deaf.url, raw, { estimate, cost: 0n, delay_ms: 500 });
    await waitFor('the deaf process to admit it', () => leased(deaf).slices().some((s) => s.running > 0), { timeoutMs: 5_000, intervalMs: 5 });
    // Six units fit at once; the seventh is refused a slice, which puts the holder on the exact path.
    const first = await Promise.all(Array.from({ length: 6 }, () => charge(other.url, raw, { estimate, cost: estimate })));
    expect(first.map((r) => r.status)).toEqual(Array(6).fill(200));
    const seventh = charge(other.url, raw, { estimate, cost: estimate });
    await sleep(200);
    // The eighth arrives while the seventh waits: it, too, must wait for the deaf slice's two units.
    const eighth = charge(other.url, raw, { estimate, cost: estimate });
    expect([(await seventh).status, (await eighth).status, (await running).status]).toEqual([200, 200, 200]);
    expect((await charges(accountId)).reduce((t, e) => t + e.cost, 0n)).toBe(usd(0.008));
  });

  it('frees a stopped process\'s slice within its TTL, and the next burst admits what the cap allows', async () => {
    const estimate = usd(0.001);
    // A slice holds at most a quarter of the smallest cap: here two requests' worth.
    const { accountId, raw } = await accountWithKey(gws[0]!.url, 1, { limits: { spend_cap_usd: { lifetime: 0.008 } } });
    // A process that takes a slice and then stops renewing it (as if killed).
    const doomed = await startLimitsGateway({ env });
    // Closed with the others at the end: closing a test gateway drops the shared database.
    gws.push(doomed);
    expect((await charge(doomed.url, raw, { estimate, cost: 0n })).status).toBe(200);
    expect(leased(doomed).slices().map((s) => s.size)).toEqual([2n * estimate]);
    // As if killed: no more renewals, and deaf to the others' requests to hand slices back.
    doomed.deps.admission.close();
    await doomed.deps.bus.close();
    const stoppedAt = Date.now();
    const first = await Promise.all(Array.from({ length: 10 }, () => charge(gws[2]!.url, raw, { estimate, cost: estimate })));
    expect(first.filter((r) => r.status === 200)).toHaveLength(6);
    await waitFor('the slice to lapse', async () => (await charge(gws[2]!.url, raw, { estimate, cost: estimate })).status === 200, { timeoutMs: SLICE_TTL_MS + 5_000, intervalMs: 250 });
    expect(Date.now() - stoppedAt).toBeLessThanOrEqual(SLICE_TTL_MS + 2_000);
    const rest = await Promise.all(Array.from({ length: 4 }, () => charge(gws[2]!.url, raw, { estimate, cost: estimate })));
    expect(rest.filter((r) => r.status === 200)).toHaveLength(1);
    expect((await charges(accountId)).reduce((t, e) => t + e.cost, 0n)).toBe(usd(0.008));
  });

  it('keeps serving from slices while Redis is killed, then 503; every charge once and no cap overrun', async () => {
    const gw = gws[1]!;
    const estimate = usd(0.001);
    const { accountId, raw } = await accountWithKey(gw.url, 1, { limits: { spend_cap_usd: { day: 0.05 } } });
    const statuses: number[] = [];
    const paced = async (ms: number) => {
      const until = Date.now() + ms;
      while (Date.now() < until) {
        statuses.push((await charge(gw.url, raw, { estimate, cost: estimate })).status);
        await sleep(50);
      }
    };
    await paced(500);
    await redis.stop();
    const killedAt = statuses.length;
    await paced(1_500);
    const during = statuses.slice(killedAt);
    expect(gw.deps.admission.mode()).toBe('degraded');
    await redis.start();
    await waitFor('leased mode again', () => gw.deps.admission.mode() === 'leased', { timeoutMs: 10_000 });
    await waitFor('admission to work again', async () => (await charge(gw.url, raw, { estimate, cost: estimate })).status === 200, { timeoutMs: 15_000, intervalMs: 200 });
    // Requests kept answering from the slice after the kill, and failed only as 503.
    expect(during[0]).toBe(200);
    for (const s of during) expect([200, 503]).toContain(s);
    const answered = statuses.filter((s) => s === 200).length + 1;
    const entries = await charges(accountId);
    expect(entries).toHaveLength(answered);
    expect(new Set(entries.map((e) => e._id)).size).toBe(answered);
    expect(entries.reduce((t, e) => t + e.cost, 0n)).toBeLessThanOrEqual(usd(0.05));
  });
});
