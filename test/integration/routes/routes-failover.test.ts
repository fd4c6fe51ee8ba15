import { APIError } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeScenario } from '../../fixtures/upstreams/fake-openai.js';
import { ledgerEntry, streamChat, streamedText } from '../chat/chat-client.js';
import { attemptsOf, KEY_B, keyedAttemptsOf, PRICE_A, PRICE_B, recordOf, startRoutesWorld, usd, USAGE_A, USAGE_B, WRONG_KEYS, type RoutesWorld } from './routes-gateway.js';

let w: RoutesWorld;
let n = 0;
/** A fresh model per test, so one test's breaker or Retry-After never reaches another. */
async function freshModel(providers: string[], extra: Record<string, unknown> = {}): Promise<string> {
  n += 1;
  const id = `route/m${n}`;
  await w.model(id, providers, extra);
  return id;
}
const messages = [{ role: 'user' as const, content: 'Say hello' }];

beforeAll(async () => {
  w = await startRoutesWorld();
}, 60_000);
afterAll(async () => {
  await w?.close();
});
beforeEach(() => {
  for (const fake of [w.a, w.b, w.c]) fake.setScenario({ type: 'normal' });
});

/**
 * Failures that move on to the second route, and how often the first route is tried: once more
 * after a stated Retry-After or a quick server error, once when it was silent or reset.
 */
const FAILURES: Array<[string, FakeScenario, string, number | null, number]> = [
  ['429 with Retry-After', { type: 'error', status: 429, body: '{"error":{"message":"Rate limit reached","type":"requests"}}', headers: { 'retry-after': '1' } }, 'status_429', 429, 2],
  ['429 without Retry-After', { type: 'error', status: 429, body: '{"error":{"message":"Rate limit reached","type":"requests"}}' }, 'status_429', 429, 1],
  ['500', { type: 'error', status: 500, body: '{"error":{"message":"The server had an error"}}' }, 'status_500', 500, 2],
  ['503', { type: 'error', status: 503, body: '{"error":{"message":"Service unavailable"}}' }, 'status_503', 503, 2],
  ['529', { type: 'error', status: 529, body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}' }, 'status_529', 529, 2],
  ['a stall before the first byte', { type: 'hang' }, 'timeout', null, 1],
  ['a reset', { type: 'reset' }, 'reset', null, 1],
];

describe.each(FAILURES)('first route fails with %s', (_name, scenario, cause, status, tries) => {
  it('answers from the second route, non-streamed, billed at its prices only', async () => {
    const model = await freshModel(['prov-a', 'prov-b']);
    w.a.setScenario(scenario);
    const before = w.b.requests.length;
    const { data, response } = await w.client.chat.completions.create({ model, messages }).withResponse();
    const requestId = response.headers.get('x-service-request-id') ?? '';
    expect(data.model).toBe(model);
    expect((data as unknown as { provider: string }).provider).toBe('prov-b');
    expect(data.choices[0]?.message.content).toBe('Answer from B.');
    expect(w.b.requests.length).toBe(before + 1);
    expect(w.b.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY_B}`);
    const cost = (data.usage as unknown as { cost: number }).cost;
    expect(cost).toBe(usd(USAGE_B, PRICE_B));
    expect((await ledgerEntry(w.gw.url, w.key.accountId, requestId))?.cost_usd).toBe(cost);
    const record = await recordOf(w, requestId);
    expect(record).toMatchObject({ status: 200, model, provider: 'prov-b', cost_usd: cost });
    const failed = Array.from({ length: tries }, () => ['prov-a', 'failed', cause, status]);
    expect(attemptsOf(record)).toEqual([...failed, ['prov-b', 'answered', null, null]]);
  });

  it('answers from the second route, streamed', async () => {
    const model = await freshModel(['prov-a', 'prov-b']);
    w.a.setScenario(scenario);
    const stream = await w.client.chat.completions.create({ model, messages, stream: true });
    let text = '';
    let cost: number | undefined;
    const providers = new Set<string>();
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      providers.add((chunk as unknown as { provider: string }).provider);
      if (chunk.usage) cost = (chunk.usage as unknown as { cost: number }).cost;
      expect(chunk.model).toBe(model);
    }
    expect(text).toBe('Answer from B.');
    expect([...providers]).toEqual(['prov-b']);
    expect(cost).toBe(usd(USAGE_B, PRICE_B));
  });
});

it('a connect error on the first route fails over to the second', async () => {
  const model = await freshModel(['prov-dead', 'prov-b']);
  const { data, response } = await w.client.chat.completions.create({ model, messages }).withResponse();
  expect((data as unknown as { provider: string }).provider).toBe('prov-b');
  const record = await recordOf(w, response.headers.get('x-service-request-id') ?? '');
  expect(attemptsOf(record)).toEqual([['prov-dead', 'failed', 'connect', null], ['prov-b', 'answered', null, null]]);
});

describe('after the first byte', () => {
  it.each([
    ['a stream cut after some chunks', { type: 'reset', afterFrames: 3 } as FakeScenario],
    ['a stream that stalls mid-answer', { type: 'stall-stream', afterFrames: 3 } as FakeScenario],
  ])('%s: never retried elsewhere, error chunk then the usage produced, billed at the first route', async (_name, scenario) => {
    const model = await freshModel(['prov-a', 'prov-b']);
    w.a.setScenario(scenario);
    const before = w.b.requests.length;
    const result = await streamChat(w.gw.url, w.key.raw, { model, messages });
    expect(result.status).toBe(200);
    expect(streamedText(result)).toBe('Answer from ');
    const errorChunk = result.events.find((e) => e.error !== undefined);
    expect(errorChunk?.choices?.[0]?.finish_reason).toBe('error');
    const usage = result.events.at(-1)?.usage;
    expect(result.done).toBe(true);
    expect(w.b.requests.length).toBe(before);
    const requestId = result.headers.get('x-service-request-id') ?? '';
    expect((await ledgerEntry(w.gw.url, w.key.accountId, requestId))?.cost_usd).toBe(usage.cost);
    expect(usage.cost).toBe(usd({ prompt: usage.prompt_tokens, completion: usage.completion_tokens }, PRICE_A));
    const record = await recordOf(w, requestId);
    expect(attemptsOf(record)).toEqual([['prov-a', 'answered', null, null]]);
    expect(record.provider).toBe('prov-a');
  });
});

describe('answered at once', () => {
  it('a 400 every route would give is not retried elsewhere and charges nothing', async () => {
    const model = await freshModel(['prov-a', 'prov-b']);
    w.a.setScenario({ type: 'error', status: 400, body: '{"error":{"message":"Invalid messages","type":"invalid_request_error"}}' });
    const before = w.b.requests.length;
    const err = await w.client.chat.completions.create({ model, messages }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIError);
    expect((err as APIError).status).toBe(400);
    expect(w.b.requests.length).toBe(before);
    const record = await recordOf(w, (err as APIError).headers?.get('x-service-request-id') ?? '');
    expect(record.cost_usd).toBe(0);
    expect(attemptsOf(record)).toEqual([['prov-a', 'failed', 'status_400', 400]]);
  });

  it('every route failing gives the last failure, charging nothing', async () => {
    const model = await freshModel(['prov-a', 'prov-b']);
    w.a.setScenario({ type: 'error', status: 500, body: '{}' });
    w.b.setScenario({ type: 'error', status: 503, body: '{}' });
    const err = (await w.client.chat.completions.create({ model, messages }).catch((e: unknown) => e)) as APIError;
    expect(err.status).toBe(502);
    const record = await recordOf(w, err.headers?.get('x-service-request-id') ?? '');
    expect(record.cost_usd).toBe(0);
    // Each quick server error is tried once more on its route before the next.
    expect(attemptsOf(record).map((a) => a[2])).toEqual(['status_500', 'status_500', 'status_503', 'status_503']);
  });
});

describe('keys', () => {
  it('a provider whose keys are all refused: the first request tries each in turn, then the next route; later ones skip it without a call', async () => {
    const model = await freshModel(['prov-keyed', 'prov-b']);
    const seen: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      const before = w.c.requests.length;
      const { data, response } = await w.client.chat.completions.create({ model, messages }).withResponse();
      expect(data.choices[0]?.message.content).toBe('Answer from B.');
      expect((data.usage as unknown as { cost: number }).cost).toBe(usd(USAGE_B, PRICE_B));
      seen.push(...w.c.requests.slice(before).map((r) => String(r.headers.authorization)));
      const record = await recordOf(w, response.headers.get('x-service-request-id') ?? '');
      expect(keyedAttemptsOf(record)).toEqual(i === 0
        ? [['prov-keyed', 'failed', 'status_401', 401, 'FAKE_KEYED_1'], ['prov-keyed', 'failed', 'status_401', 401, 'FAKE_KEYED_2'], ['prov-b', 'answered', null, null, undefined]]
        : [['prov-keyed', 'failed', 'keys_exhausted', null, undefined], ['prov-b', 'answered', null, null, undefined]]);
    }
    expect(seen).toEqual([`Bearer ${WRONG_KEYS.FAKE_KEYED_1}`, `Bearer ${WRONG_KEYS.FAKE_KEYED_2}`]);
    const logs = w.gw.logs();
    expect(logs).toContain('FAKE_KEYED_1');
    expect(logs).toContain('FAKE_KEYED_2');
    for (const value of Object.values(WRONG_KEYS)) expect(logs).not.toContain(value);
    const metrics = await w.gw.deps.metrics.render();
    expect(metrics.body).toMatch(/farebox_upstream_keys_set_aside_total\{provider="prov-keyed",key_env="FAKE_KEYED_1",reason="status_401"\} 1/);
  });
});

describe('request-level routing', () => {
  it('models: falls back to the next model, which answers under its own id', async () => {
    const first = await freshModel(['prov-a']);
    const second = await freshModel(['prov-b']);
    w.a.setScenario({ type: 'error', status: 503, body: '{}' });
    const { data } = await w.client.chat.completions.create({ model: first, messages, models: [second] } as never).withResponse();
    expect(data.model).toBe(second);
    expect((data.usage as unknown as { cost: number }).cost).toBe(usd(USAGE_B, PRICE_B));
  });

  it('models: every id passes the key allowlist', async () => {
    const first = await freshModel(['prov-a']);
    const second = await freshModel(['prov-b']);
    const admin = (await import('../../helpers/admin-client.js')).adminClient(w.gw.url);
    const limited = await admin.mintKey(w.key.accountId, { limits: { models: [first] } });
    const res = await fetch(`${w.gw.url}/v1/chat/completions`, {
      method: 'POST', headers: { authorization: `Bearer ${limited.raw}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: first, messages, models: [second] }),
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('model_not_allowed');
  });

  it('provider.order and provider.ignore choose the route; sort by price prefers the cheaper', async () => {
    const model = await freshModel(['prov-a', 'prov-b']);
    const ordered = await w.client.chat.completions.create({ model, messages, provider: { order: ['prov-b'] } } as never);
    expect((ordered as unknown as { provider: string }).provider).toBe('prov-b');
    const ignored = await w.client.chat.completions.create({ model, messages, provider: { ignore: ['prov-a'] } } as never);
    expect((ignored as unknown as { provider: string }).provider).toBe('prov-b');
    const cheap = await w.client.chat.completions.create({ model, messages, provider: { order: ['prov-b'], sort: 'price' } } as never);
    expect((cheap as unknown as { provider: string }).provider).toBe('prov-b');
    const noFallback = w.a.requests.length;
    w.b.setScenario({ type: 'error', status: 503, body: '{}' });
    const refused = (await w.client.chat.completions.create({ model, messages, provider: { order: ['prov-b'], allow_fallbacks: false } } as never).catch((e: unknown) => e)) as APIError;
    expect(refused.status).toBe(502);
    expect(w.a.requests.length).toBe(noFallback);
    expect((w.b.requests.at(-1)?.body as Record<string, unknown>).provider).toBeUndefined();
  });

  it('aliases resolve to their model; a colliding alias is refused', async () => {
    const alias = `alias/m${n + 1}-latest`;
    const model = await freshModel(['prov-a'], { aliases: [alias] });
    const data = await w.client.chat.completions.create({ model: alias, messages });
    expect(data.model).toBe(model);
    const admin = (await import('../../helpers/admin-client.js')).adminClient(w.gw.url);
    const clash = await admin.call('PUT', '/models/route/clash', { name: 'x', kind: 'chat', provider: 'prov-a', upstream_model: 'x', pricing: PRICE_A, aliases: [model] });
    expect(clash.status).toBe(400);
  });
});
