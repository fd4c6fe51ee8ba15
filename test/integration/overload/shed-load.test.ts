import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../helpers/admin-client.js';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { waitFor } from '../../helpers/wait-for.js';
import { chat, fundedKey, streamChat, streamedText } from '../chat/chat-client.js';

/**
 * Load shedding on the in-flight signal, which a test can drive exactly: a stream and a slow
 * chat fill a web that takes two at a time. (The event-loop signal is driven in the gauge's unit test.)
 */
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ env: testEnv({ LOG_LEVEL: 'fatal', SHED_MAX_IN_FLIGHT: '2' }) });
}, 60_000);
afterAll(async () => gw?.close());

const slow = (ms: number) => ({ model: 'local/echo', max_tokens: 50, messages: [{ role: 'user', content: `[[local:slow=${ms}]] [[local:chunks=4]] hello there` }] });

/** A figure of the web's metrics page (0 when absent). */
async function metric(series: string): Promise<number> {
  const page = await gw.deps.metrics.render();
  const line = page.body.split('\n').find((l) => l.startsWith(`${series} `));
  return Number(line?.split(' ')[1] ?? 0);
}
const shedCount = (reason: string) => metric(`farebox_requests_shed_total{reason="${reason}"}`);

describe('load shedding', () => {
  it('answers new work 503 overloaded at once while the web is full, charges nothing for it, and keeps health, metrics and running streams', async () => {
    const key = await fundedKey(gw.url, 5);
    // A stream under way counts as work in flight, and is never cut.
    let streaming = () => {};
    const started = new Promise<void>((resolve) => (streaming = resolve));
    const stream = streamChat(gw.url, key.raw, slow(150), { onFirstEvent: () => streaming() });
    await started;
    const running = [chat(gw.url, key.raw, slow(250))];
    await waitFor('a stream and a chat in flight', async () => (await metric('farebox_requests_in_flight')) === 2, { timeoutMs: 5_000, intervalMs: 5 });
    const before = await shedCount('in_flight');
    const sentAt = performance.now();
    const shed = await chat(gw.url, key.raw, slow(0));
    const shedMs = performance.now() - sentAt;
    expect(shed.status).toBe(503);
    expect(shed.body.error).toMatchObject({ code: 'overloaded', type: 'api_error' });
    expect(Number(shed.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Answered before the chats ahead of it were: not queued behind them.
    expect(shedMs).toBeLessThan(1_000);
    expect((await call(gw.url, 'GET', '/healthz')).status).toBe(200);
    expect(await shedCount('in_flight')).toBe(before + 1);
    const answers = await Promise.all(running);
    expect(answers.map((a) => a.status)).toEqual([200]);
    const streamed = await stream;
    expect(streamed.status).toBe(200);
    expect(streamed.done).toBe(true);
    expect(streamedText(streamed)).toContain('hello there');
    // Room again once they are done.
    expect((await chat(gw.url, key.raw, slow(0))).status).toBe(200);
    // Three chats answered, three charges: the shed one cost nothing.
    await gw.deps.ledger.settled();
    const charges = await gw.deps.c.ledger.find({ account_id: key.accountId, kind: 'charge' }).toArray();
    expect(charges).toHaveLength(3);
    expect(charges.map((c) => c._id)).not.toContain(shed.headers.get('x-service-request-id'));
  });
});

