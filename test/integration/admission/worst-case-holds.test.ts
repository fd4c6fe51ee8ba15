import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateChatCost } from '../../../src/chat/admit/chat-estimate.js';
import type { CatalogModel } from '../../../src/catalog/model-types.js';
import type { ChatRequestBody } from '../../../src/providers/chat/chat-types.js';
import { call, type JsonResponse } from '../../helpers/admin-client.js';
import { spawnWeb, type WebProcess } from '../../helpers/spawn-web.js';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { streamChat, type StreamResult } from '../chat/chat-client.js';
import { accountWithKey } from './limits-fixtures.js';
import { keyLifetimeSpend } from '../../helpers/key-spend.js';

const env = testEnv({ LOG_LEVEL: 'warn' });
let gw: TestGateway;
const webs: WebProcess[] = [];
let echo: CatalogModel;

/** Natural text, and a small output limit the echo fills. */
const PROMPT = 'word '.repeat(40).trim();
const MAX_TOKENS = 12;
const BODY: ChatRequestBody = { model: 'local/echo', max_tokens: MAX_TOKENS, messages: [{ role: 'user', content: PROMPT }] };
/** Requests' worth of money the account or the cap allows. */
const ALLOWED = 5;
const CONCURRENCY = 100;

beforeAll(async () => {
  gw = await startTestGateway({ env });
  webs.push(...(await Promise.all([spawnWeb(env), spawnWeb(env)])));
  const model = gw.deps.catalog.get('local/echo');
  if (!model) throw new Error('local/echo missing from the catalog');
  echo = model;
}, 120_000);
afterAll(async () => {
  await Promise.all(webs.map((w) => w.stop()));
  await gw?.close();
});

const nanoOf = (usd: number): bigint => BigInt(Math.round(usd * 1e9));
const usdText = (nano: bigint): string => (Number(nano) / 1e9).toFixed(9);
const requestIdOf = (completionId: string): string => `req_${completionId.replace(/^chatcmpl-/, '')}`;

/** One outcome, streamed or not: status, error code, the cost the client saw and its request id. */
interface Outcome {
  status: number;
  code?: string;
  message?: string;
  cost?: bigint;
  requestId?: string;
}

function fromJson(res: JsonResponse): Outcome {
  if (res.status !== 200) return { status: res.status, code: res.body.error.code, message: res.body.error.message };
  return { status: 200, cost: nanoOf(res.body.usage.cost as number), requestId: requestIdOf(res.body.id as string) };
}

function fromStream(res: StreamResult): Outcome {
  if (res.status !== 200) {
    const body = JSON.parse(res.text) as { error: { code: string; message: string } };
    return { status: res.status, code: body.error.code, message: body.error.message };
  }
  const usage = res.events.at(-1)?.usage as { cost: number } | undefined;
  return { status: 200, cost: usage ? nanoOf(usage.cost) : undefined, requestId: requestIdOf(res.events[0]?.id as string) };
}

async function fire(raw: string, stream: boolean): Promise<Outcome[]> {
  return Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, i) => {
      const url = webs[i % 2]!.url;
      if (stream) return fromStream(await streamChat(url, raw, BODY));
      return fromJson(await call(url, 'POST', '/v1/chat/completions', { token: raw, body: BODY }));
    }),
  );
}

/** The exact money invariants of an account after a burst. */
async function checkLedger(accountId: string, ok: Outcome[]): Promise<{ charged: bigint; absorbed: bigint }> {
  const entries = await gw.deps.c.ledger.find({ account_id: accountId }).toArray();
  const charges = entries.filter((e) => e.kind === 'charge');
  const credit = entries.reduce((t, e) => t + e.credit, 0n);
  const charged = charges.reduce((t, e) => t + e.charged, 0n);
  const absorbed = charges.reduce((t, e) => t + e.absorbed, 0n);
  expect((await gw.deps.accounts.get(accountId)).balance).toBe(credit - charged);
  // Every cost a client saw is a ledger charge of that request, to the last nano, and no
  // charge exists that no client saw.
  const byId = new Map(charges.map((e) => [e._id, e.cost]));
  for (const o of ok) expect(byId.get(o.requestId ?? '')).toBe(o.cost);
  expect(charges).toHaveLength(ok.length);
  expect(charges.reduce((t, e) => t + e.cost, 0n)).toBe(ok.reduce((t, o) => t + (o.cost ?? 0n), 0n));
  return { charged, absorbed };
}

describe.each([false, true])('100 concurrent chats against balance and caps (stream: %s)', (stream) => {
  it('admits requests only while their worst case fits the balance; the rest get 402', async () => {
    const { estimate } = await estimateChatCost(BODY, echo);
    const { accountId, raw } = await accountWithKey(webs[0]!.url, usdText(estimate * BigInt(ALLOWED)));
    const outcomes = await fire(raw, stream);
    const ok = outcomes.filter((o) => o.status === 200);
    const refused = outcomes.filter((o) => o.status !== 200);
    for (const r of refused) expect(r.code).toBe('insufficient_credits');
    // Every charge stays within its hold, so the balance pays for at least ALLOWED requests
    // (more when finished ones freed the rest of their holds) and is never overdrawn.
    for (const o of ok) expect(o.cost).toBeLessThanOrEqual(estimate);
    expect(ok.length).toBeGreaterThanOrEqual(ALLOWED);
    const { charged, absorbed } = await checkLedger(accountId, ok);
    expect(absorbed).toBe(0n);
    expect(charged).toBeLessThanOrEqual(estimate * BigInt(ALLOWED));
  });

  it('admits requests only while their worst case fits the day cap; spend never passes it', async () => {
    const { estimate } = await estimateChatCost(BODY, echo);
    const cap = estimate * BigInt(ALLOWED);
    const { accountId, keyId, raw } = await accountWithKey(webs[0]!.url, 10, { limits: { spend_cap_usd: { day: usdText(cap) } } });
    const outcomes = await fire(raw, stream);
    const ok = outcomes.filter((o) => o.status === 200);
    for (const r of outcomes.filter((o) => o.status !== 200)) expect(r.code).toBe('key_limit_exceeded');
    expect(ok.length).toBeGreaterThanOrEqual(ALLOWED);
    const { charged, absorbed } = await checkLedger(accountId, ok);
    expect(absorbed).toBe(0n);
    expect(charged).toBeLessThanOrEqual(cap);
    const spend = await keyLifetimeSpend(gw.deps.c, keyId);
    expect(spend).toBe(charged + absorbed);
    expect(spend).toBeLessThanOrEqual(cap);
  });
});

describe('refusals say what would fit', () => {
  it('names the largest affordable max_tokens, and that many is then admitted', async () => {
    const { estimate } = await estimateChatCost(BODY, echo);
    const { raw } = await accountWithKey(webs[0]!.url, usdText(estimate - 1n));
    const refused = await call(webs[0]!.url, 'POST', '/v1/chat/completions', { token: raw, body: BODY });
    expect(refused.status).toBe(402);
    const fits = Number(/At most (\d+) max_tokens fit/.exec(refused.body.error.message as string)?.[1]);
    expect(fits).toBe(MAX_TOKENS - 1);
    const admitted = await call(webs[1]!.url, 'POST', '/v1/chat/completions', { token: raw, body: { ...BODY, max_tokens: fits } });
    expect(admitted.status).toBe(200);
    expect(admitted.body.usage.completion_tokens).toBeLessThanOrEqual(fits);
  });

  it('without max_tokens holds the model output limit and refuses a small balance', async () => {
    const { raw } = await accountWithKey(webs[0]!.url, '0.001');
    const res = await call(webs[0]!.url, 'POST', '/v1/chat/completions', { token: raw, body: { model: 'local/echo', messages: [{ role: 'user', content: 'hi' }] } });
    expect(res.status).toBe(402);
    expect(res.body.error.message).toMatch(/max_tokens/);
  });
});
