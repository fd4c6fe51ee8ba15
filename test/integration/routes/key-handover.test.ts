import { afterAll, beforeAll, expect, it } from 'vitest';
import { streamChat, streamedText } from '../chat/chat-client.js';
import { HALF_KEYS, keyedAttemptsOf, recordOf, startRoutesWorld, USAGE_A, PRICE_A, usd, type RoutesWorld } from './routes-gateway.js';

let w: RoutesWorld;
const messages = [{ role: 'user' as const, content: 'Say hello' }];

beforeAll(async () => {
  w = await startRoutesWorld();
  await w.model('route/half', ['prov-half', 'prov-b']);
}, 60_000);
afterAll(async () => {
  await w?.close();
});

it('a provider whose first key is refused answers every request with its second, the first request included', async () => {
  const before = w.c.requests.length;
  const bBefore = w.b.requests.length;
  for (let i = 0; i < 6; i += 1) {
    const { data, response } = await w.client.chat.completions.create({ model: 'route/half', messages }).withResponse();
    expect(response.status).toBe(200);
    expect(data.choices[0]?.message.content).toBe('Answer from C.');
    expect((data as unknown as { provider: string }).provider).toBe('prov-half');
    expect((data.usage as unknown as { cost: number }).cost).toBe(usd(USAGE_A, PRICE_A));
    const record = await recordOf(w, response.headers.get('x-service-request-id') ?? '');
    expect(keyedAttemptsOf(record)).toEqual(i === 0
      ? [['prov-half', 'failed', 'status_401', 401, 'FAKE_HALF_1'], ['prov-half', 'answered', null, null, 'FAKE_HALF_2']]
      : [['prov-half', 'answered', null, null, 'FAKE_HALF_2']]);
    expect(JSON.stringify(record)).not.toContain(HALF_KEYS.FAKE_HALF_1);
    expect(JSON.stringify(record)).not.toContain(HALF_KEYS.FAKE_HALF_2);
  }
  const sent = w.c.requests.slice(before).map((r) => String(r.headers.authorization));
  // The refused key was sent once, then set aside; the route never failed over.
  expect(sent).toEqual([`Bearer ${HALF_KEYS.FAKE_HALF_1}`, ...Array.from({ length: 6 }, () => `Bearer ${HALF_KEYS.FAKE_HALF_2}`)]);
  expect(w.b.requests.length).toBe(bBefore);
  const logs = w.gw.logs();
  for (const value of Object.values(HALF_KEYS)) expect(logs).not.toContain(value);
  const metrics = await w.gw.deps.metrics.render();
  expect(metrics.body).toMatch(/farebox_upstream_keys_set_aside_total\{provider="prov-half",key_env="FAKE_HALF_1",reason="status_401"\} 1/);
});

it('streams go on with the next key too', async () => {
  const result = await streamChat(w.gw.url, w.key.raw, { model: 'route/half', messages });
  expect(result.status).toBe(200);
  expect(streamedText(result)).toBe('Answer from C.');
  const record = await recordOf(w, result.headers.get('x-service-request-id') ?? '');
  expect(keyedAttemptsOf(record).at(-1)).toEqual(['prov-half', 'answered', null, null, 'FAKE_HALF_2']);
});
