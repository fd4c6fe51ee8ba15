import { afterAll, beforeAll, expect, it } from 'vitest';
import { call } from '../../helpers/admin-client.js';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { waitFor } from '../../helpers/wait-for.js';
import { fundedKey, ledgerEntry, streamChat, type FundedKey } from './chat-client.js';

/**
 * A stream's concurrent-stream slot belongs to its client and goes when the client leaves; its
 * hold belongs to the money and stays until the request settles, while the upstream is still
 * read for its usage. The local model streams 12 deltas 250 ms apart, so every client here
 * leaves (after 2 chunks) seconds before its upstream ends and settles.
 */
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ env: testEnv({ LOG_LEVEL: 'fatal', USAGE_GRACE_MS: '30000' }) });
}, 60_000);
afterAll(async () => gw?.close());

const body = { model: 'local/echo', max_tokens: 3000, messages: [{ role: 'user', content: '[[local:slow=250]] [[local:chunks=12]] tell me a long story please' }] };

const streamSlots = (k: FundedKey) => gw.deps.redis.zcard(gw.deps.admission.keyNames.streams(k.accountId, k.keyId));
const holdPlaced = async (k: FundedKey, requestId: string) => (await gw.deps.redis.hexists(gw.deps.admission.keyNames.holdInfo(k.accountId), requestId)) === 1;

/** Opens a stream and leaves after two chunks; its status and request id. */
async function openAndLeave(k: FundedKey): Promise<{ status: number; requestId: string; code?: string }> {
  const result = await streamChat(gw.url, k.raw, body, { abortAfter: 2 });
  const requestId = result.headers.get('x-service-request-id') ?? '';
  if (result.status === 200) return { status: 200, requestId };
  return { status: result.status, requestId, code: (JSON.parse(result.text) as { error: { code: string } }).error.code };
}

it('50 streams opened three at a time on concurrent_streams 3, each client leaving after 2 chunks: all admitted, each charged', async () => {
  const key = await fundedKey(gw.url, 5, { limits: { concurrent_streams: 3 } });
  const outcomes: Array<{ status: number; requestId: string; code?: string }> = [];
  let heldAfterLeaving = 0;
  while (outcomes.length < 50) {
    const wave = await Promise.all(Array.from({ length: Math.min(3, 50 - outcomes.length) }, () => openAndLeave(key)));
    outcomes.push(...wave);
    // The clients are gone: their slots go with them, while the upstream is still read.
    await waitFor('the leaving clients\' stream slots to be freed', async () => (await streamSlots(key)) === 0);
    for (const o of wave) if (o.status === 200 && (await holdPlaced(key, o.requestId))) heldAfterLeaving += 1;
  }
  expect(outcomes.filter((o) => o.status !== 200)).toEqual([]);
  // Slots were freed while holds stayed (the upstreams take seconds more to end).
  expect(heldAfterLeaving).toBeGreaterThan(0);
  expect(gw.deps.graceReads.inUse).toBeGreaterThan(0);
  // Each request settles once its upstream ends, by the usage it reported after the client left.
  for (const o of outcomes) {
    const entry = await waitFor(`the charge of ${o.requestId}`, () => ledgerEntry(gw.url, key.accountId, o.requestId), { timeoutMs: 60_000, intervalMs: 200 });
    expect(entry.cost_usd).toBeGreaterThan(0);
  }
  await waitFor('every grace read to end', () => gw.deps.graceReads.inUse === 0);
  await waitFor('every hold to be freed', async () => (await gw.deps.redis.hlen(gw.deps.admission.keyNames.holdInfo(key.accountId))) === 0);
}, 180_000);

it('a client that leaves keeps its hold until settlement, so spend caps still count it', async () => {
  // The daily cap fits one worst-case hold (3,000 completion tokens at $2/M = $0.006), not two.
  const key = await fundedKey(gw.url, 5, { limits: { concurrent_streams: 3, spend_cap_usd: { day: 0.01 } } });
  const first = await openAndLeave(key);
  expect(first.status).toBe(200);
  await waitFor('the first stream\'s slot to be freed', async () => (await streamSlots(key)) === 0);
  expect(await holdPlaced(key, first.requestId)).toBe(true);
  // No stream slot is taken, but the hold of the stream being read on is: the cap refuses.
  const second = await openAndLeave(key);
  expect(second).toMatchObject({ status: 403, code: 'key_limit_exceeded' });
  const entry = await waitFor('the first charge', () => ledgerEntry(gw.url, key.accountId, first.requestId), { timeoutMs: 60_000, intervalMs: 200 });
  expect(entry.cost_usd).toBeGreaterThan(0);
  expect(entry.cost_usd).toBeLessThan(0.006);
  // Settled: the hold is gone and the cap has room again.
  await waitFor('the hold to be freed', async () => !(await holdPlaced(key, first.requestId)));
  const third = await call(gw.url, 'POST', '/v1/chat/completions', { token: key.raw, body: { ...body, messages: [{ role: 'user', content: 'hi' }] } });
  expect(third.status).toBe(200);
}, 120_000);
