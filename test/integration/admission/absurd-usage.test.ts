import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, call } from '../../helpers/admin-client.js';
import { TEST_ADMIN_TOKEN } from '../../helpers/test-gateway.js';
import { probeHold, startCountingGateway, type CountingGateway } from './vendor-counting-gateway.js';
import { keyLifetimeSpend } from '../../helpers/key-spend.js';

let cg: CountingGateway;
beforeAll(async () => {
  cg = await startCountingGateway();
}, 120_000);
afterAll(async () => cg?.close());

const BODY = { model: 'fake/gpt-4o', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] };

/** An OpenAI chat completion whose usage object is the given raw JSON text (1e400 stays literal). */
const completion = (usage: string | undefined) =>
  `{"id":"chatcmpl-x","object":"chat.completion","created":1700000000,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]${usage === undefined ? '' : `,"usage":${usage}`}}`;

const usage = (completionTokens: string) => `{"prompt_tokens":5,"completion_tokens":${completionTokens},"total_tokens":5}`;
const CASES: Array<[string, string | undefined, boolean]> = [
  ['completion_tokens 1e15', usage('1e15'), true],
  // JSON.parse reads 1e400 as Infinity: not a count at all, so it is counted here like a missing one.
  ['completion_tokens 1e400 (Infinity)', usage('1e400'), false],
  ['prompt_tokens 1e400 (Infinity)', '{"prompt_tokens":1e400,"completion_tokens":1,"total_tokens":1}', false],
  ['completion_tokens negative', usage('-5'), false],
  ['completion_tokens a string', usage('"many"'), false],
  ['completion_tokens null', usage('null'), false],
  ['usage missing', undefined, false],
];

async function overLimitCount(): Promise<number> {
  const res = await fetch(`${cg.gw.url}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
  const text = await res.text();
  return [...text.matchAll(/^farebox_upstream_over_limit_total(?:\{[^}]*\})? (\d+)/gm)].reduce((s, m) => s + Number(m[1]), 0);
}

describe('absurd usage from an upstream', () => {
  it.each(CASES)('%s: no crash, no wrap, charge within the hold, excess recorded', async (_name, raw, exceeds) => {
    const hold = await probeHold(cg.gw.url, '/v1/chat/completions', BODY);
    const admin = adminClient(cg.gw.url);
    const accountId = await admin.createAccount();
    await admin.topup(accountId, 1);
    const { keyId, raw: token } = await admin.mintKey(accountId);
    const before = await overLimitCount();
    cg.openai.setScenario({ type: 'error', status: 200, body: completion(raw) });
    const res = await call(cg.gw.url, 'POST', '/v1/chat/completions', { token, body: BODY });
    cg.openai.setScenario({ type: 'normal' });
    expect(res.status).toBeLessThan(500);
    expect((await fetch(`${cg.gw.url}/healthz`)).status).toBe(200);
    const charges = await cg.gw.deps.c.ledger.find({ account_id: accountId, kind: 'charge' }).toArray();
    expect(charges).toHaveLength(1);
    const charge = charges[0]!;
    expect(charge.cost).toBeGreaterThanOrEqual(0n);
    expect(charge.cost).toBeLessThanOrEqual(hold.nano);
    const spend = await keyLifetimeSpend(cg.gw.deps.c, keyId);
    expect(spend).toBe(charge.cost);
    expect(spend).toBeLessThanOrEqual(hold.nano);
    if (exceeds) {
      expect(charge.absorbed_reason).toBe('upstream_over_limit');
      expect(charge.over_limit).toBeGreaterThan(0n);
      expect(await overLimitCount()).toBeGreaterThan(before);
    } else {
      expect(charge.over_limit).toBeUndefined();
    }
  });
});
