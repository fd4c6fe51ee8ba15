import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, call } from '../../helpers/admin-client.js';
import { spawnWeb, type WebProcess } from '../../helpers/spawn-web.js';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { admissionTestRouter } from './admission-test-router.js';
import { accountWithKey, charge, usd } from './limits-fixtures.js';
import { waitFor } from '../../helpers/wait-for.js';

const env = testEnv({ LOG_LEVEL: 'warn' });
let a: TestGateway;
let b: TestGateway;
const webs: WebProcess[] = [];

beforeAll(async () => {
  // Two in-process gateways with their own connections and caches stand for two web
  // processes running the metered test route; two real `web` processes join them.
  const extensions = (deps: TestGateway['deps']) => ({ routers: [admissionTestRouter(deps)] });
  a = await startTestGateway({ env, extensions });
  b = await startTestGateway({ env, extensions });
  webs.push(...(await Promise.all([spawnWeb(env), spawnWeb(env)])));
}, 120_000);
afterAll(async () => {
  await Promise.all(webs.map((w) => w.stop()));
  await b?.close();
  await a?.close();
});

describe('limits shared across web processes', () => {
  it('admits exactly rpm requests in total when they arrive at two processes', async () => {
    const { raw } = await accountWithKey(a.url, 1, { limits: { rpm: 10 } });
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => charge(i % 2 ? a.url : b.url, raw, { cost: 10n })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(10);
    expect(results.filter((r) => r.status === 429)).toHaveLength(40);
  });

  it('caps every charge at its hold across processes, records the excess as absorbed, and keeps the ledger exact', async () => {
    const { accountId, raw } = await accountWithKey(a.url, 0.01);
    const estimate = usd(0.001);
    const cost = usd(0.0012);
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => charge(i % 2 ? a.url : b.url, raw, { estimate, cost, delay_ms: 15 })));
    const admitted = results.filter((r) => r.status === 200);
    expect(results.filter((r) => r.status !== 200).every((r) => r.body.error.code === 'insufficient_credits')).toBe(true);
    const held = admitted.reduce((t, r) => t + BigInt(r.body.held as string), 0n);
    expect(held).toBeLessThanOrEqual(usd(0.01));
    // Each request metered more than it held: it is billed its hold, never more.
    for (const r of admitted) expect(BigInt(r.body.cost as string)).toBe(estimate);
    // Under LEDGER_ACK=local an answered charge may still be on its way from a gateway's spool.
    await a.deps.ledger.settled();
    const entries = await a.deps.c.ledger.find({ account_id: accountId }).toArray();
    const charges = entries.filter((e) => e.kind === 'charge');
    expect(charges).toHaveLength(admitted.length);
    for (const e of charges) expect([e.over_limit, e.absorbed_reason]).toEqual([cost - estimate, 'upstream_over_limit']);
    const charged = entries.reduce((t, e) => t + e.charged, 0n);
    const credit = entries.reduce((t, e) => t + e.credit, 0n);
    expect((await a.deps.accounts.get(accountId)).balance).toBe(credit - charged);
    expect(charged).toBe(admitted.reduce((t, r) => t + BigInt(r.body.charged as string), 0n));
  });

  it('refuses a key on every process within a second of disabling it through one', async () => {
    const { keyId, raw } = await accountWithKey(webs[0]!.url, 1);
    for (const w of webs) expect((await call(w.url, 'GET', '/v1/key', { token: raw })).status).toBe(200);
    const patched = await adminClient(webs[0]!.url).call('PATCH', `/keys/${keyId}`, { disabled: true });
    expect(patched.status).toBe(200);
    await new Promise((r) => setTimeout(r, 1_000));
    for (const target of [...webs.map((w) => w.url), a.url, b.url]) {
      const res = await call(target, 'GET', '/v1/key', { token: raw });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('invalid_api_key');
    }
  });

  it('reports the same live figures from every process', async () => {
    const { raw } = await accountWithKey(a.url, 1, { limits: { rpm: 20, spend_cap_usd: { day: 1 } } });
    for (let i = 0; i < 4; i++) expect((await charge(i % 2 ? a.url : b.url, raw, { estimate: usd(0.01), cost: usd(0.01) })).status).toBe(200);
    for (const w of webs) {
      const info = await call(w.url, 'GET', '/v1/key', { token: raw });
      expect(info.body.data.remaining.requests_this_minute).toBe(16);
      expect(info.body.data.remaining.day_usd).toBe(0.96);
    }
  });
});

/** A chat completion through the real route, with local/echo test directives in the prompt. */
function chat(url: string, raw: string, content: string, extra: Record<string, unknown> = {}) {
  return call(url, 'POST', '/v1/chat/completions', { token: raw, body: { model: 'local/echo', messages: [{ role: 'user', content }], ...extra } });
}

const nanoOf = (usdNumber: number): bigint => BigInt(Math.round(usdNumber * 1e9));

describe('chat completions across two real web processes', () => {
  it('admits exactly rpm of 50 parallel chats, with rate headers and Retry-After on the rest', async () => {
    const { raw } = await accountWithKey(webs[0]!.url, 1, { limits: { rpm: 10 } });
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => chat(webs[i % 2]!.url, raw, `hello ${i}`)));
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(10);
    for (const r of results.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(429);
      expect(r.body.error.code).toBe('rate_limited');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(r.headers.get('x-ratelimit-limit')).toBe('10');
      expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
    }
    for (const r of ok) expect(r.headers.get('x-ratelimit-limit')).toBe('10');
  });

  it('keeps at most concurrent_streams streams open across processes and frees a slot on disconnect', async () => {
    const { raw } = await accountWithKey(webs[0]!.url, 1, { limits: { concurrent_streams: 3 } });
    const open = async (url: string) => {
      const abort = new AbortController();
      const res = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${raw}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'local/echo', stream: true, messages: [{ role: 'user', content: 'long [[local:slow=500]] [[local:chunks=40]]' }] }),
        signal: abort.signal,
      });
      const body = res.status === 200 ? undefined : ((await res.json()) as { error: { code: string } });
      return { status: res.status, code: body?.error.code, retryAfter: res.headers.get('retry-after'), close: () => abort.abort() };
    };
    const streams = await Promise.all(Array.from({ length: 10 }, (_, i) => open(webs[i % 2]!.url)));
    const admitted = streams.filter((s) => s.status === 200);
    expect(admitted).toHaveLength(3);
    for (const s of streams.filter((x) => x.status !== 200)) {
      expect(s.code).toBe('too_many_concurrent');
      expect(Number(s.retryAfter)).toBeGreaterThanOrEqual(1);
    }
    admitted[0]?.close();
    // The slot frees once the upstream's usage is read, at most USAGE_GRACE_MS after the client left.
    let attempt = 1;
    const next = await waitFor('a freed slot on either process', async () => {
      const s = await open(webs[attempt++ % 2]!.url);
      return s.status === 200 ? s : undefined;
    }, { timeoutMs: 8_000 });
    for (const s of [...admitted, next]) s.close();
  });

  it('meters 100 concurrent chats on $0.01 exactly: reported costs equal the ledger, then 402', async () => {
    const { accountId, raw } = await accountWithKey(webs[0]!.url, 0.01);
    const prompt = 'x '.repeat(400);
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => chat(webs[i % 2]!.url, raw, `${prompt} ${i}`, { max_tokens: 50 })));
    const ok = results.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThan(0);
    for (const r of results.filter((x) => x.status !== 200)) expect(r.body.error.code).toBe('insufficient_credits');
    const reported = ok.reduce((t, r) => t + nanoOf(r.body.usage.cost as number), 0n);
    // Under LEDGER_ACK=local an answered charge may still be on its way from a web's spool.
    await a.deps.ledger.settled();
    const entries = await a.deps.c.ledger.find({ account_id: accountId }).toArray();
    const charges = entries.filter((e) => e.kind === 'charge');
    const charged = charges.reduce((t, e) => t + e.charged, 0n);
    const credit = entries.reduce((t, e) => t + e.credit, 0n);
    expect(charges).toHaveLength(ok.length);
    expect(charges.reduce((t, e) => t + e.cost, 0n)).toBe(reported);
    expect((await a.deps.accounts.get(accountId)).balance).toBe(credit - charged);
    // Requests are admitted only with their whole worst case held, so nothing is absorbed.
    expect(charges.reduce((t, e) => t + e.absorbed, 0n)).toBe(0n);
    // Whatever is left is used one request at a time until no worst case fits, then 402.
    let last = await chat(webs[0]!.url, raw, prompt, { max_tokens: 50 });
    for (let i = 0; i < 40 && last.status === 200; i++) last = await chat(webs[i % 2]!.url, raw, prompt, { max_tokens: 50 });
    expect(last.status).toBe(402);
    const left = (await a.deps.accounts.get(accountId)).balance;
    expect(left).toBeGreaterThanOrEqual(0n);
    expect(left).toBeLessThan(usd(0.01));
  });
});
