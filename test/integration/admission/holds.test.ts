import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdmission } from '../../../src/admission/create-admission.js';
import { call } from '../../helpers/admin-client.js';
import { testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { accountWithKey, charge, manualClock, startLimitsGateway, usd } from './limits-fixtures.js';

const clock = manualClock('2031-06-10T10:00:00.000Z');
let gw: TestGateway;

beforeAll(async () => {
  gw = await startLimitsGateway({ clock: clock.clock, env: testEnv({ LOG_LEVEL: 'warn', HOLD_TTL_SECONDS: '300' }) });
});
afterAll(async () => gw?.close());

async function fixture(raw: string, keyId: string) {
  const key = await gw.deps.c.keys.findOne({ _id: keyId });
  const model = gw.deps.catalog.get('local/echo');
  if (!key || !model) throw new Error(`fixture missing for ${raw.slice(0, 8)}`);
  return { key, model };
}

/** Under leased admission, hands back this process's slices once their charges reached Redis (as at shutdown). */
const handBack = () => gw.deps.admission.drain(5_000);

async function ledgerSums(accountId: string) {
  await gw.deps.ledger.settled();
  const entries = await gw.deps.c.ledger.find({ account_id: accountId }).toArray();
  const sum = (f: (e: (typeof entries)[number]) => bigint) => entries.reduce((t, e) => t + f(e), 0n);
  return { credit: sum((e) => e.credit), charged: sum((e) => e.charged), absorbed: sum((e) => e.absorbed), charges: entries.filter((e) => e.kind === 'charge').length };
}

describe('balance holds', () => {
  it('lets 100 concurrent priced requests on $0.01 overspend by no more than their holds left uncovered', async () => {
    const balance = usd(0.01);
    const { accountId, raw } = await accountWithKey(gw.url, 0.01);
    const estimate = usd(0.001);
    const cost = usd(0.0015); // each request turns out dearer than its estimate
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => charge(gw.url, raw, { estimate, cost, delay_ms: 20 + (i % 7) * 5 })));
    const admitted = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status !== 200);
    expect(admitted.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.status).toBe(402);
      expect(r.body.error.code).toBe('insufficient_credits');
    }
    const held = admitted.reduce((t, r) => t + BigInt(r.body.held as string), 0n);
    const totalCost = admitted.reduce((t, r) => t + BigInt(r.body.cost as string), 0n);
    const uncovered = admitted.reduce((t, r) => t + BigInt(r.body.cost as string) - BigInt(r.body.held as string), 0n);
    const reportedCharged = admitted.reduce((t, r) => t + BigInt(r.body.charged as string), 0n);
    // Holds never promise more than the balance, so spending beyond it is bounded by what
    // the admitted requests cost above their holds.
    expect(held).toBeLessThanOrEqual(balance);
    expect(totalCost - balance).toBeLessThanOrEqual(uncovered);

    const sums = await ledgerSums(accountId);
    const account = await gw.deps.accounts.get(accountId);
    expect(sums.charges).toBe(admitted.length);
    expect(account.balance).toBe(sums.credit - sums.charged);
    expect(reportedCharged).toBe(sums.charged);
    expect(sums.charged + sums.absorbed).toBe(totalCost);
    expect(account.balance).toBe(0n);
    expect(sums.absorbed).toBe(totalCost - balance);

    const after = await charge(gw.url, raw, { estimate, cost });
    expect(after.status).toBe(402);
    expect(after.body.error.type).toBe('billing_error');
  });

  it('stops counting holds of a crashed process once they expire', async () => {
    const { accountId, keyId, raw } = await accountWithKey(gw.url, 0.01);
    const { key, model } = await fixture(raw, keyId);
    const crashed = createAdmission(gw.deps);
    // A worst case beyond the balance is refused, never held in part.
    await expect(crashed.admit({ requestId: 'req_crashed_too_big', key, model, estimate: usd(1), stream: false })).rejects.toMatchObject({ code: 'insufficient_credits' });
    const ticket = await crashed.admit({ requestId: 'req_crashed_hold', key, model, estimate: usd(0.01), stream: false });
    crashed.close();
    expect(ticket.held).toBe(usd(0.01));
    expect((await charge(gw.url, raw, { estimate: 1n, cost: 1n })).status).toBe(402);
    clock.advance(301_000);
    const res = await charge(gw.url, raw, { estimate: 1_000n, cost: 1_000n });
    expect(res.status).toBe(200);
    await gw.deps.ledger.settled();
    expect((await gw.deps.accounts.get(accountId)).balance).toBe(usd(0.01) - 1_000n);
  });

  it('charges once when settled twice, and release after settle changes nothing', async () => {
    const { accountId, keyId, raw } = await accountWithKey(gw.url, 1);
    const { key, model } = await fixture(raw, keyId);
    const keys = gw.deps.admission.keyNames;
    const ticket = await gw.deps.admission.admit({ requestId: 'req_settle_twice', key, model, estimate: usd(0.5), stream: false });
    expect(ticket.held).toBe(usd(0.5));
    const [a, b] = await Promise.all([ticket.settle(usd(0.2), { prompt: 10 }), ticket.settle(usd(0.2), { prompt: 10 })]);
    const c = await ticket.settle(usd(0.2), { prompt: 10 });
    await ticket.release();
    expect(a).toEqual(b);
    expect(c.charged).toBe(usd(0.2));
    const sums = await ledgerSums(accountId);
    expect(sums.charges).toBe(1);
    expect(sums.charged).toBe(usd(0.2));
    await handBack();
    expect(await gw.deps.redis.get(keys.balance(accountId))).toBe(usd(0.8).toString());
    expect(await gw.deps.redis.get(keys.heldTotal(accountId))).toBe('0');
  });

  it('frees a released hold without charging, and applies a charge made elsewhere once', async () => {
    const { accountId, keyId, raw } = await accountWithKey(gw.url, 1);
    const { key, model } = await fixture(raw, keyId);
    const keys = gw.deps.admission.keyNames;
    const plain = await gw.deps.admission.admit({ requestId: 'req_released', key, model, estimate: usd(0.9), stream: false });
    const tooBig = await charge(gw.url, raw, { estimate: usd(0.2), cost: 1n });
    expect(tooBig.status).toBe(402);
    expect(tooBig.body.error.message).toContain('$0.1 is left');
    expect((await charge(gw.url, raw, { estimate: usd(0.1), cost: 1n })).body.held).toBe(usd(0.1).toString());
    await plain.release();
    await plain.release();
    const worker = await gw.deps.admission.admit({ requestId: 'req_worker', key, model, estimate: usd(0.1), stream: false });
    const outcome = await gw.deps.ledger.charge({ requestId: 'req_worker', accountId, keyId, model: model.id, cost: usd(0.05), at: clock.now() });
    await worker.release(outcome);
    await worker.release(outcome);
    const sums = await ledgerSums(accountId);
    expect(sums.charged).toBe(usd(0.05) + 1n);
    await handBack();
    expect(await gw.deps.redis.get(keys.balance(accountId))).toBe((usd(1) - usd(0.05) - 1n).toString());
    const info = await call(gw.url, 'GET', '/v1/credits', { token: raw });
    expect(info.body.data.balance_usd).toBe(0.949999999);
  });

  it('counts in-flight holds in GET /v1/key remaining figures', async () => {
    const { keyId, raw } = await accountWithKey(gw.url, 5, { limits: { spend_cap_usd: { lifetime: 2, day: 1 } } });
    const { key, model } = await fixture(raw, keyId);
    const ticket = await gw.deps.admission.admit({ requestId: 'req_live_hold', key, model, estimate: usd(0.3), stream: false });
    const during = await call(gw.url, 'GET', '/v1/key', { token: raw });
    expect(during.body.data.remaining.lifetime_usd).toBe(1.7);
    expect(during.body.data.remaining.day_usd).toBe(0.7);
    await ticket.settle(usd(0.1), { prompt: 1 });
    const after = await call(gw.url, 'GET', '/v1/key', { token: raw });
    expect(after.body.data.spend_usd).toBe(0.1);
    expect(after.body.data.usage.day_usd).toBe(0.1);
    expect(after.body.data.remaining.lifetime_usd).toBe(1.9);
    expect(after.body.data.remaining.day_usd).toBe(0.9);
  });
});
