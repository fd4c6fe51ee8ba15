import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdmission } from '../../../src/admission/create-admission.js';
import { call } from '../../helpers/admin-client.js';
import type { TestGateway } from '../../helpers/test-gateway.js';
import { accountWithKey, manualClock, startLimitsGateway } from './limits-fixtures.js';
import { waitFor } from '../../helpers/wait-for.js';

const clock = manualClock('2031-05-01T08:00:00.000Z');
let gw: TestGateway;

beforeAll(async () => {
  gw = await startLimitsGateway({ clock: clock.clock });
});
afterAll(async () => gw?.close());

interface OpenStream {
  status: number;
  code?: string;
  retryAfter: string | null;
  close(): void;
}

/** Opens a held stream on the test route; `close` aborts it like a client going away. */
async function openStream(raw: string): Promise<OpenStream> {
  const abort = new AbortController();
  const res = await fetch(`${gw.url}/test/stream`, {
    method: 'POST',
    headers: { authorization: `Bearer ${raw}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'local/echo', estimate: '1000' }),
    signal: abort.signal,
  });
  if (res.status !== 200) {
    const body = (await res.json()) as { error: { code: string } };
    return { status: res.status, code: body.error.code, retryAfter: res.headers.get('retry-after'), close: () => undefined };
  }
  const reader = res.body?.getReader();
  await reader?.read(); // the "admitted" line: the slot is taken
  return { status: 200, retryAfter: null, close: () => abort.abort() };
}

async function openUntilAdmitted(raw: string): Promise<OpenStream> {
  return waitFor('a stream to be admitted', async () => {
    const s = await openStream(raw);
    return s.status === 200 ? s : undefined;
  }, { timeoutMs: 2_500 });
}

describe('concurrent streams', () => {
  it('admits 3 of 10 parallel streams, refuses 7 with Retry-After, and lets the next in when one ends', async () => {
    const { raw } = await accountWithKey(gw.url, 1, { limits: { concurrent_streams: 3 } });
    const streams = await Promise.all(Array.from({ length: 10 }, () => openStream(raw)));
    const open = streams.filter((s) => s.status === 200);
    const refused = streams.filter((s) => s.status === 429);
    expect(open).toHaveLength(3);
    expect(refused).toHaveLength(7);
    for (const r of refused) {
      expect(r.code).toBe('too_many_concurrent');
      expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
    }
    open[0]?.close();
    const next = await openUntilAdmitted(raw);
    expect((await openStream(raw)).status).toBe(429);
    for (const s of [...open, next]) s.close();
  });

  it('frees a slot whose process died once its lease runs out', async () => {
    const { keyId, raw } = await accountWithKey(gw.url, 1, { limits: { concurrent_streams: 1 } });
    const key = await gw.deps.c.keys.findOne({ _id: keyId });
    const model = gw.deps.catalog.get('local/echo');
    if (!key || !model) throw new Error('fixture missing');
    // Another admission instance whose ticket is never settled and whose lease refresh is
    // stopped stands for a crashed process.
    const crashed = createAdmission(gw.deps);
    await crashed.admit({ requestId: 'req_crashed_stream', key, model, estimate: 1_000n, stream: true });
    crashed.close();
    expect((await openStream(raw)).code).toBe('too_many_concurrent');
    clock.advance(61_000);
    const after = await openStream(raw);
    expect(after.status).toBe(200);
    after.close();
  });

  it('does not count non-streamed requests as streams', async () => {
    const { raw } = await accountWithKey(gw.url, 1, { limits: { concurrent_streams: 0 } });
    const res = await call(gw.url, 'POST', '/test/charge', { token: raw, body: { model: 'local/echo', estimate: '10', cost: '10' } });
    expect(res.status).toBe(200);
    expect((await openStream(raw)).code).toBe('too_many_concurrent');
  });
});
