import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectExactMoney, type Reported } from '../faults/money-invariants.js';
import { streamChat } from '../chat/chat-client.js';
import { PRICE_A, PRICE_B, recordOf, startRoutesWorld, usd, USAGE_A, USAGE_B, type RoutesWorld } from './routes-gateway.js';

let w: RoutesWorld;

beforeAll(async () => {
  // A short cool-down so the breaker opens, lets a trial through and closes again during the run.
  w = await startRoutesWorld({ ROUTE_BREAKER_FAILURES: '3', ROUTE_BREAKER_COOLDOWN_MS: '50' });
}, 60_000);
afterAll(async () => {
  await w?.close();
});

const TOTAL = 200;
const PARALLEL = 20;
const messages = [{ role: 'user' as const, content: 'Say hello' }];

interface Outcome extends Reported {
  provider: string;
  usd: number;
}

async function one(model: string, i: number): Promise<Outcome> {
  if (i % 2 === 0) {
    const { data, response } = await w.client.chat.completions.create({ model, messages }).withResponse();
    const cost = (data.usage as unknown as { cost: number }).cost;
    const provider = (data as unknown as { provider: string }).provider;
    return { requestId: response.headers.get('x-service-request-id') ?? '', cost: BigInt(Math.round(cost * 1e9)), provider, usd: cost };
  }
  const result = await streamChat(w.gw.url, w.key.raw, { model, messages });
  expect(result.status).toBe(200);
  expect(result.done).toBe(true);
  const last = result.events.at(-1) as { usage: { cost: number }; provider: string };
  return { requestId: result.headers.get('x-service-request-id') ?? '', cost: BigInt(Math.round(last.usage.cost * 1e9)), provider: last.provider, usd: last.usage.cost };
}

it('200 requests while the first route flaps: every one answered, each billed at the route that answered, money exact', async () => {
  const model = 'route/flapping';
  await w.model(model, ['prov-a', 'prov-b']);
  let down = false;
  const flap = setInterval(() => {
    down = !down;
    w.a.setScenario(down ? { type: 'error', status: 503, body: '{"error":{"message":"overloaded"}}' } : { type: 'normal' });
  }, 15);
  const outcomes: Outcome[] = [];
  try {
    let next = 0;
    await Promise.all(Array.from({ length: PARALLEL }, async () => {
      while (next < TOTAL) {
        const i = next;
        next += 1;
        outcomes.push(await one(model, i));
      }
    }));
  } finally {
    clearInterval(flap);
    w.a.setScenario({ type: 'normal' });
  }
  expect(outcomes).toHaveLength(TOTAL);
  for (const o of outcomes) expect(o.usd).toBe(o.provider === 'prov-a' ? usd(USAGE_A, PRICE_A) : usd(USAGE_B, PRICE_B));
  const byProvider = new Set(outcomes.map((o) => o.provider));
  expect(byProvider.has('prov-b')).toBe(true);
  await expectExactMoney(w.gw.deps, w.key.accountId, outcomes);
  // Records name the route that answered, after whatever failed first.
  const sample = outcomes.find((o) => o.provider === 'prov-b');
  const record = await recordOf(w, sample?.requestId ?? '');
  expect(record.provider).toBe('prov-b');
  expect((record.attempts as Array<{ outcome: string }>).at(-1)?.outcome).toBe('answered');
}, 120_000);
