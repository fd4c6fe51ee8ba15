import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../../helpers/test-gateway.js';
import { testEnv } from '../../helpers/test-gateway.js';
import { waitFor } from '../../helpers/wait-for.js';
import { streamChat } from '../chat/chat-client.js';
import { accountWithKey, startLimitsGateway } from './limits-fixtures.js';

let gw: TestGateway;

beforeAll(async () => {
  // Holds live one second unless renewed; a request may run four.
  gw = await startLimitsGateway({ env: testEnv({ LOG_LEVEL: 'error', HOLD_TTL_SECONDS: '1', MAX_REQUEST_SECONDS: '4' }) });
});
afterAll(async () => gw?.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A local stream of `chunks` deltas, 100 ms apart. */
const slow = (chunks: number) => ({ model: 'local/echo', max_tokens: 200, stream: true, messages: [{ role: 'user', content: `${'word '.repeat(100)}[[local:chunks=${chunks}]] [[local:slow=100]]` }] });

async function held(accountId: string, keyId: string): Promise<{ holds: number; slots: number }> {
  const k = gw.deps.admission.keyNames;
  return { holds: await gw.deps.redis.zcard(k.holds(accountId)), slots: await gw.deps.redis.zcard(k.streams(accountId, keyId)) };
}

async function settled(accountId: string, keyId: string): Promise<{ holds: number; slots: number }> {
  let left = await held(accountId, keyId);
  for (let i = 0; i < 60 && left.holds + left.slots > 0; i++) {
    await sleep(50);
    left = await held(accountId, keyId);
  }
  return left;
}

describe('holds last as long as their request', () => {
  it('keeps the hold and the stream slot of a stream that outlives several hold lifetimes', async () => {
    const { accountId, keyId, raw } = await accountWithKey(gw.url, 1, { limits: { concurrent_streams: 1 } });
    const running = streamChat(gw.url, raw, slow(25));
    // Until the stream is admitted (a busy machine may take seconds): a probe sent earlier would
    // take the key's one stream slot itself and leave the long stream the 429.
    await waitFor('the long stream to be admitted', async () => (await held(accountId, keyId)).holds === 1, { timeoutMs: 20_000 });
    const seen: Array<{ holds: number; slots: number }> = [];
    const refusals: number[] = [];
    // Sampled across more than three hold lifetimes while the stream runs.
    for (let i = 0; i < 3; i++) {
      seen.push(await held(accountId, keyId));
      refusals.push((await streamChat(gw.url, raw, slow(1))).status);
      await sleep(500);
    }
    const result = await running;
    expect(result.status).toBe(200);
    expect(result.done).toBe(true);
    for (const s of seen) expect(s).toEqual({ holds: 1, slots: 1 });
    expect(refusals).toEqual([429, 429, 429]);
    expect(await settled(accountId, keyId)).toEqual({ holds: 0, slots: 0 });
  }, 30_000);

  it('ends a stream at MAX_REQUEST_SECONDS with upstream_timeout, the usage produced and [DONE]', async () => {
    const { accountId, keyId, raw } = await accountWithKey(gw.url, 1, { limits: { concurrent_streams: 1 } });
    const result = await streamChat(gw.url, raw, slow(80));
    expect(result.status).toBe(200);
    const error = result.events.find((e) => e.error !== undefined);
    expect(error?.error.code).toBe('upstream_timeout');
    const usage = result.events.at(-1)?.usage as { completion_tokens: number; cost: number } | undefined;
    expect(usage?.completion_tokens).toBeGreaterThan(0);
    expect(result.done).toBe(true);
    // Fewer deltas than asked: the stream was cut, not run to its end.
    expect(result.events.filter((e) => e.choices?.[0]?.delta?.content).length).toBeLessThan(80);
    expect(await settled(accountId, keyId)).toEqual({ holds: 0, slots: 0 });
  }, 30_000);
});
