import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeasedAdmission } from '../../../src/admission/index.js';
import { testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { accountWithKey, charge, startLimitsGateway, usd } from './limits-fixtures.js';

/**
 * Slices of leased admission are whole numbers of the holds they are spent on: two in-process
 * gateways on one Redis prefix and database stand for two web processes. One of them is deaf
 * to hand-back requests and keeps its slices through a minute of idleness, so room parked
 * there serves only its own requests: a remainder smaller than one hold would stay stranded,
 * and the other process would refuse a request the cap has room for.
 */
const HOLD = usd(0.001);
/** The key's lifetime cap ($0.01), in holds: a quarter of it is two and a half. */
const CAP_HOLDS = 10;
let deaf: TestGateway;
let other: TestGateway;

beforeAll(async () => {
  const env = testEnv({ LOG_LEVEL: 'error', ADMISSION: 'leased' });
  deaf = await startLimitsGateway({ env: { ...env, SLICE_IDLE_MS: '60000' } });
  // A refusal near the cap waits at most three of these for room held by the deaf process.
  other = await startLimitsGateway({ env: { ...env, SLICE_IDLE_MS: '300' } });
  await deaf.deps.bus.close();
}, 120_000);
afterAll(async () => {
  await other?.close();
  await deaf?.close();
});

const leased = (gw: TestGateway) => gw.deps.admission as LeasedAdmission;

/** The room left in a gateway's slices of an account. */
const rooms = (gw: TestGateway, accountId: string) => leased(gw).slices().filter((s) => s.owner.accountId === accountId).map((s) => s.room);

describe('slices of whole holds', () => {
  it('admits every hold a cap fits across two processes, leaving no slice a remainder that fits no request', async () => {
    const { accountId, raw } = await accountWithKey(other.url, 1, { limits: { spend_cap_usd: { lifetime: 0.01 } } });
    // The deaf process takes a slice (at most a quarter of the cap) and spends one hold of it;
    // the rest stays parked in its slice for the whole test.
    expect((await charge(deaf.url, raw, { estimate: HOLD, cost: HOLD })).status).toBe(200);
    // The other process's burst asks for all the cap has room for beyond that slice, less one
    // hold that the slice keeps for the deaf process's next request: nothing may be refused
    // (a slice of two and a half holds would park half a hold out of everyone's reach).
    const burst = await Promise.all(Array.from({ length: CAP_HOLDS - 2 }, () => charge(other.url, raw, { estimate: HOLD, cost: HOLD })));
    const refusals = burst.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.body.error?.message ?? ''}`);
    expect(refusals).toEqual([]);
    for (const room of rooms(deaf, accountId)) expect(room % HOLD, `room ${room} of the deaf process`).toBe(0n);
    expect((await charge(deaf.url, raw, { estimate: HOLD, cost: HOLD })).status).toBe(200);
    await other.deps.ledger.settled();
    const charges = await other.deps.c.ledger.find({ account_id: accountId, kind: 'charge' }).toArray();
    expect(charges.reduce((t, e) => t + e.cost, 0n)).toBe(HOLD * BigInt(CAP_HOLDS));
  });
});
