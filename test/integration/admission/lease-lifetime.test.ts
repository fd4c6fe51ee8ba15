import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../../helpers/test-gateway.js';
import { testEnv } from '../../helpers/test-gateway.js';
import { chat, streamChat } from '../chat/chat-client.js';
import { accountWithKey, charge, manualClock, startLimitsGateway, usd } from './limits-fixtures.js';
import { waitFor } from '../../helpers/wait-for.js';

const clock = manualClock('2026-03-10T12:00:00Z');
let gw: TestGateway;

beforeAll(async () => {
  // Short holds so the refresher ticks every second.
  // The exact path's leases: a leased process's slices have their own test (leased-admission.test.ts).
  gw = await startLimitsGateway({ env: testEnv({ LOG_LEVEL: 'error', HOLD_TTL_SECONDS: '3', ADMISSION: 'exact' }), clock: clock.clock });
});
afterAll(async () => {
  await gw?.close();
});

/** Holds and stream slots the account still has in Redis, and leases still renewed. */
async function leftovers(accountId: string, keyId: string): Promise<{ holds: number; slots: number; leases: string[] }> {
  const k = gw.deps.admission.keyNames;
  return {
    holds: await gw.deps.redis.zcard(k.holds(accountId)),
    slots: await gw.deps.redis.zcard(k.streams(accountId, keyId)),
    leases: gw.deps.admission.leasedRequests(),
  };
}

async function settledLeftovers(accountId: string, keyId: string) {
  await waitFor('holds, slots and leases to be released', async () => {
    const left = await leftovers(accountId, keyId);
    return left.holds + left.slots === 0 && left.leases.length === 0;
  }, { timeoutMs: 2_000 }).catch(() => undefined);
  // What is left, for the assertion to show.
  return leftovers(accountId, keyId);
}

describe('leases end with their request', () => {
  it('leaves no hold, slot or renewed lease after success, upstream error and client abort', async () => {
    const { accountId, keyId, raw } = await accountWithKey(gw.url, 1, { limits: { rpm: 10_000 } });
    const msg = (content: string) => ({ model: 'local/echo', max_tokens: 50, messages: [{ role: 'user', content }] });
    expect((await charge(gw.url, raw, { estimate: usd(0.01), cost: usd(0.001) })).status).toBe(200);
    expect((await chat(gw.url, raw, msg('ok'))).status).toBe(200);
    expect((await chat(gw.url, raw, msg('boom [[local:fail-after=1]] [[local:chunks=3]]'))).status).toBe(502);
    const failed = await streamChat(gw.url, raw, msg('boom [[local:fail-after=1]] [[local:chunks=3]]'));
    expect(failed.status).toBe(200);
    const aborted = await streamChat(gw.url, raw, msg('long [[local:chunks=20]] [[local:slow=100]]'), { abortAfter: 2 });
    expect(aborted.events.length).toBe(2);
    expect(await settledLeftovers(accountId, keyId)).toEqual({ holds: 0, slots: 0, leases: [] });
  });

  it('stops renewing a lease whose request never settled once it outlives the longest request', async () => {
    const { accountId, raw } = await accountWithKey(gw.url, 1);
    const key = await gw.deps.keyAuth.authenticate(raw);
    const model = gw.deps.catalog.get('local/echo')!;
    await gw.deps.admission.admit({ requestId: 'req_never_settled', key, model, estimate: usd(0.01), stream: true });
    expect(gw.deps.admission.leasedRequests()).toContain('req_never_settled');
    // A lease lasts as long as a request may: its longest run, the wait for usage, one hold lifetime.
    const timing = gw.config.requestTiming;
    clock.advance(timing.maxRequestMs + timing.usageGraceMs + gw.config.holdTtlSeconds * 1000 + 1);
    await waitFor('the lease to be dropped', () => !gw.deps.admission.leasedRequests().includes('req_never_settled'), { timeoutMs: 6_000 });
    // Unrenewed, the hold has lapsed: the next admission drops it.
    expect((await charge(gw.url, raw, { estimate: 1n, cost: 1n })).status).toBe(200);
    expect(await gw.deps.redis.zcard(gw.deps.admission.keyNames.holds(accountId))).toBe(0);
  });
});
