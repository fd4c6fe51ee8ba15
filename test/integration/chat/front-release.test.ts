import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call } from '../../helpers/admin-client.js';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { fundedKey } from './chat-client.js';

/**
 * A throw after admission and before the upstream call, on each chat front door, must end the
 * request's hold and stream slot at once, not when the hold's lease runs out. The upstream
 * calls are wrapped so a test can make the next one throw before it reaches the provider.
 */
const inject = vi.hoisted(() => ({ armed: false }));

function throwIfArmed(): void {
  if (!inject.armed) return;
  inject.armed = false;
  throw new TypeError('injected failure between admission and the upstream call');
}

vi.mock('../../../src/chat/chat-complete.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../src/chat/chat-complete.js')>();
  return { ...original, completeChat: (...args: Parameters<typeof original.completeChat>) => (throwIfArmed(), original.completeChat(...args)) };
});
vi.mock('../../../src/chat/chat-stream.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../src/chat/chat-stream.js')>();
  return { ...original, streamChat: (...args: Parameters<typeof original.streamChat>) => (throwIfArmed(), original.streamChat(...args)) };
});

let gw: TestGateway;

beforeAll(async () => {
  // A long hold lifetime: a leaked hold would outlast the test by far.
  gw = await startTestGateway({ env: testEnv({ LOG_LEVEL: 'fatal', HOLD_TTL_SECONDS: '600' }) });
});
afterAll(async () => gw?.close());

/** One request body per door; max_tokens makes the hold most of the $0.01 balance. */
const doors = [
  { name: 'chat completions', path: '/v1/chat/completions', body: (stream: boolean) => ({ model: 'local/echo', max_tokens: 3000, stream, messages: [{ role: 'user', content: 'hi' }] }) },
  { name: 'responses', path: '/v1/responses', body: (stream: boolean) => ({ model: 'local/echo', max_output_tokens: 3000, stream, input: 'hi' }) },
  { name: 'messages', path: '/v1/messages', body: (stream: boolean) => ({ model: 'local/echo', max_tokens: 3000, stream, messages: [{ role: 'user', content: 'hi' }] }) },
] as const;

describe.each(doors)('$name', (door) => {
  it('frees the hold at once when a non-streamed request throws after admission', async () => {
    // $0.01 holds one request of 3,000 completion tokens at $2/M ($0.006), not two.
    const { raw } = await fundedKey(gw.url, 0.01);
    inject.armed = true;
    const failed = await call(gw.url, 'POST', door.path, { token: raw, body: door.body(false) });
    expect(failed.status).toBe(500);
    expect(inject.armed).toBe(false);
    const next = await call(gw.url, 'POST', door.path, { token: raw, body: door.body(false) });
    expect(next.status).toBe(200);
  });

  it('frees the stream slot at once when a streamed request throws after admission', async () => {
    const { raw } = await fundedKey(gw.url, 1, { limits: { concurrent_streams: 1 } });
    inject.armed = true;
    const failed = await call(gw.url, 'POST', door.path, { token: raw, body: door.body(true) });
    expect(failed.status).toBe(500);
    expect(inject.armed).toBe(false);
    const next = await fetch(`${gw.url}${door.path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${raw}`, 'content-type': 'application/json' },
      body: JSON.stringify(door.body(true)),
    });
    expect(next.status).toBe(200);
    expect(await next.text()).toContain('data: ');
  });
});
