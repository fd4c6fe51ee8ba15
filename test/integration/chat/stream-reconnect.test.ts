import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { fundedKey, streamChat } from './chat-client.js';

/**
 * A client that drops its stream and reconnects at once (an SDK's retry, a browser reload) must
 * find its stream slot free: the slot of the closed socket is freed a moment after the close,
 * and the next admission of the same key may already be on its way.
 */
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ env: testEnv({ LOG_LEVEL: 'fatal' }) });
}, 60_000);
afterAll(async () => gw?.close());

const body = { model: 'local/echo', max_tokens: 200, messages: [{ role: 'user', content: '[[local:slow=100]] [[local:chunks=20]] a long answer please' }] };

it('admits a stream opened the moment the previous one on a one-stream key was dropped', async () => {
  const key = await fundedKey(gw.url, 5, { limits: { concurrent_streams: 1 } });
  const statuses: number[] = [];
  let previous = await streamChat(gw.url, key.raw, body, { abortAfter: 1 });
  statuses.push(previous.status);
  for (let i = 0; i < 10; i++) {
    // streamChat returns right after it aborted: the next request leaves in the same tick.
    previous = await streamChat(gw.url, key.raw, body, { abortAfter: 1 });
    statuses.push(previous.status);
  }
  expect(statuses).toEqual(Array(11).fill(200));
  // The limit still holds while a stream stays open (here for 1.5 s after its first event).
  let opened = () => {};
  const first = new Promise<void>((resolve) => (opened = resolve));
  const open = streamChat(gw.url, key.raw, body, { abortAfter: 15, onFirstEvent: () => opened() });
  await first;
  const second = await streamChat(gw.url, key.raw, body, { abortAfter: 1 });
  expect(second.status).toBe(429);
  expect((await open).status).toBe(200);
}, 60_000);
