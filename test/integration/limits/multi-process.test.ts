import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, call } from '../../helpers/admin-client.js';
import { spawnWeb, type WebProcess } from '../../helpers/spawn-web.js';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { admissionTestRouter } from './admission-test-router.js';
import { accountWithKey, charge, usd } from './limits-fixtures.js';

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

  it('bounds overspend by the holds across processes and keeps the ledger exact', async () => {
    const { accountId, raw } = await accountWithKey(a.url, 0.01);
    const estimate = usd(0.001);
    const cost = usd(0.0012);
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => charge(i % 2 ? a.url : b.url, raw, { estimate, cost, delay_ms: 15 })));
    const admitted = results.filter((r) => r.status === 200);
    expect(results.filter((r) => r.status !== 200).every((r) => r.body.error.code === 'insufficient_credits')).toBe(true);
    const held = admitted.reduce((t, r) => t + BigInt(r.body.held as string), 0n);
    const uncovered = admitted.reduce((t, r) => t + BigInt(r.body.cost as string) - BigInt(r.body.held as string), 0n);
    expect(held).toBeLessThanOrEqual(usd(0.01));
    expect(BigInt(admitted.length) * cost - usd(0.01)).toBeLessThanOrEqual(uncovered);
    const entries = await a.deps.c.ledger.find({ account_id: accountId }).toArray();
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
    for (let i = 0; i < 4; i++) expect((await charge(i % 2 ? a.url : b.url, raw, { cost: usd(0.01) })).status).toBe(200);
    for (const w of webs) {
      const info = await call(w.url, 'GET', '/v1/key', { token: raw });
      expect(info.body.data.remaining.requests_this_minute).toBe(16);
      expect(info.body.data.remaining.day_usd).toBe(0.96);
    }
  });
});
