import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdmission } from '../../../src/admission/create-admission.js';
import { call } from '../../helpers/admin-client.js';
import type { TestGateway } from '../../helpers/test-gateway.js';
import { accountWithKey, charge, manualClock, startLimitsGateway, usd } from './limits-fixtures.js';

const clock = manualClock('2031-01-31T23:59:00.000Z');
let gw: TestGateway;

beforeAll(async () => {
  gw = await startLimitsGateway({ clock: clock.clock });
});
afterAll(async () => gw?.close());

const milli = { estimate: usd(0.001), cost: usd(0.001) };

async function times(n: number, raw: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await charge(gw.url, raw, milli)).status);
  return statuses;
}

/** Drops every admission key of this gateway, as a Redis restart would. */
async function dropAdmissionState(): Promise<void> {
  const keys = await gw.deps.redis.keys(`${gw.config.redisPrefix}:adm:*`);
  if (keys.length > 0) await gw.deps.redis.del(...keys);
}

describe('spend caps', () => {
  it('rolls day and month caps over at UTC midnight and names the cap and its reset', async () => {
    clock.set('2031-01-31T23:59:00.000Z');
    const { raw } = await accountWithKey(gw.url, 1, { limits: { spend_cap_usd: { day: 0.005, month: 0.008 } } });
    expect(await times(5, raw)).toEqual([200, 200, 200, 200, 200]);
    const day = await charge(gw.url, raw, milli);
    expect(day.status).toBe(403);
    expect(day.body.error.code).toBe('key_limit_exceeded');
    expect(day.body.error.type).toBe('permission_error');
    expect(day.body.error.message).toContain('daily');
    expect(day.body.error.message).toContain('2031-02-01T00:00:00.000Z');

    // Mirrors lost: the caps are rebuilt from MongoDB and still hold.
    await dropAdmissionState();
    expect((await charge(gw.url, raw, milli)).status).toBe(403);

    clock.set('2031-02-01T00:00:00.000Z'); // new day and new month
    expect(await times(5, raw)).toEqual([200, 200, 200, 200, 200]);
    expect((await charge(gw.url, raw, milli)).status).toBe(403);
    clock.set('2031-02-02T00:00:01.000Z');
    expect(await times(3, raw)).toEqual([200, 200, 200]);
    const month = await charge(gw.url, raw, milli);
    expect(month.status).toBe(403);
    expect(month.body.error.message).toContain('monthly');
    expect(month.body.error.message).toContain('2031-03-01T00:00:00.000Z');

    const info = await call(gw.url, 'GET', '/v1/key', { token: raw });
    expect(info.body.data.usage).toEqual({ day_usd: 0.003, week_usd: 0.013, month_usd: 0.008 });
    expect(info.body.data.remaining.month_usd).toBe(0);
    expect(info.body.data.remaining.day_usd).toBe(0.002);
    clock.set('2031-03-01T00:00:00.000Z');
    expect((await charge(gw.url, raw, milli)).status).toBe(200);
  });

  it('enforces a lifetime cap that never resets', async () => {
    const { raw } = await accountWithKey(gw.url, 1, { limits: { spend_cap_usd: { lifetime: 0.002 } } });
    expect(await times(2, raw)).toEqual([200, 200]);
    const refused = await charge(gw.url, raw, milli);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain('lifetime');
    expect(refused.body.error.message).toContain('does not reset');
    clock.advance(400 * 24 * 3600 * 1000);
    expect((await charge(gw.url, raw, milli)).status).toBe(403);
  });

  it('counts in-flight holds against the caps and refuses a worst case that does not fit, never holding part of it', async () => {
    const { keyId, raw } = await accountWithKey(gw.url, 1, { limits: { spend_cap_usd: { day: 0.005 } } });
    const key = await gw.deps.c.keys.findOne({ _id: keyId });
    const model = gw.deps.catalog.get('local/echo');
    if (!key || !model) throw new Error('fixture missing');
    const other = createAdmission(gw.deps);
    const first = await other.admit({ requestId: 'req_cap_hold_1', key, model, estimate: usd(0.0045), stream: false });
    expect(first.held).toBe(usd(0.0045));
    await expect(other.admit({ requestId: 'req_cap_hold_too_big', key, model, estimate: usd(0.003), stream: false })).rejects.toMatchObject({
      code: 'key_limit_exceeded',
      message: expect.stringContaining('$0.0005 is left'),
    });
    const second = await other.admit({ requestId: 'req_cap_hold_2', key, model, estimate: usd(0.0005), stream: false });
    expect(second.held).toBe(usd(0.0005));
    const refused = await charge(gw.url, raw, milli);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('key_limit_exceeded');
    await first.release();
    expect((await charge(gw.url, raw, milli)).status).toBe(200);
    await second.release();
    other.close();
  });

  it('lets free models through a spent cap (they cost nothing)', async () => {
    const { raw } = await accountWithKey(gw.url, 1, { limits: { spend_cap_usd: { day: 0 } } });
    expect((await charge(gw.url, raw, milli)).status).toBe(403);
    expect((await charge(gw.url, raw, { model: 'local/echo-free' })).status).toBe(200);
  });
});
