import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, call } from '../../helpers/admin-client.js';
import { startTestGateway, TEST_ADMIN_TOKEN, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { waitFor } from '../../helpers/wait-for.js';

let gw: TestGateway;
let admin: ReturnType<typeof adminClient>;

beforeAll(async () => {
  const env = testEnv();
  gw = await startTestGateway({ env, jobs: {} });
  admin = adminClient(gw.url);
});
afterAll(async () => {
  await gw?.close();
});

/** Signs in and returns the cookie pair to send back (`name=value`). */
async function signIn(token: string, headers: Record<string, string> = {}): Promise<{ status: number; cookie: string; setCookie: string; body: any }> {
  const res = await fetch(`${gw.url}/console/session`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ token }) });
  const setCookie = res.headers.get('set-cookie') ?? '';
  return { status: res.status, cookie: setCookie.split(';')[0] ?? '', setCookie, body: await res.json() };
}

function withCookie(cookie: string, extra: Record<string, string> = {}) {
  return { headers: { cookie, ...extra } };
}

describe('console sessions', () => {
  it('signs the operator in with an HttpOnly SameSite=Strict cookie that the operator routes accept', async () => {
    const session = await signIn(TEST_ADMIN_TOKEN);
    expect(session.status).toBe(201);
    expect(session.body.data.mode).toBe('operator');
    expect(session.setCookie).toMatch(/fbx_console=[A-Za-z0-9_-]{43}/);
    expect(session.setCookie).toMatch(/httponly/i);
    expect(session.setCookie).toMatch(/samesite=strict/i);
    expect(session.setCookie).toMatch(/path=\//i);
    expect(session.setCookie).not.toMatch(/secure/i);
    expect((await call(gw.url, 'GET', '/v1/admin/models', withCookie(session.cookie))).status).toBe(200);
    expect((await call(gw.url, 'GET', '/metrics', withCookie(session.cookie))).status).toBe(200);
    expect((await call(gw.url, 'GET', '/console/session', withCookie(session.cookie))).body.data).toEqual({ mode: 'operator' });
    // Operator sessions are not management keys.
    expect((await call(gw.url, 'GET', '/v1/keys', withCookie(session.cookie))).status).toBe(401);
    // The session id is never logged.
    expect(gw.logs()).not.toContain(session.cookie.split('=')[1]);
  });

  it('marks the cookie Secure when the request came over https through the proxy', async () => {
    const session = await signIn(TEST_ADMIN_TOKEN, { 'x-forwarded-proto': 'https' });
    expect(session.status).toBe(201);
    expect(session.setCookie).toMatch(/;\s*secure/i);
  });

  it('needs a same-origin Origin for unsafe cookie-authenticated requests (CSRF)', async () => {
    const { cookie } = await signIn(TEST_ADMIN_TOKEN);
    const body = { name: 'csrf' };
    const none = await call(gw.url, 'POST', '/v1/admin/accounts', { ...withCookie(cookie), body });
    expect(none.status).toBe(403);
    expect(none.body.error.code).toBe('permission_denied');
    const foreign = await call(gw.url, 'POST', '/v1/admin/accounts', { ...withCookie(cookie, { origin: 'https://evil.example' }), body });
    expect(foreign.status).toBe(403);
    const same = await call(gw.url, 'POST', '/v1/admin/accounts', { ...withCookie(cookie, { origin: gw.url }), body });
    expect(same.status).toBe(201);
    // A bearer header needs no Origin, as before.
    expect((await admin.call('POST', '/accounts', body)).status).toBe(201);
  });

  it('signs an account in with a management key, re-checked on every request', async () => {
    const accountId = await admin.createAccount('holder');
    const mgmt = await admin.mintKey(accountId, { role: 'management', name: 'console' });
    const inference = await admin.mintKey(accountId);
    expect((await signIn(inference.raw)).status).toBe(403);
    const session = await signIn(mgmt.raw);
    expect(session.status).toBe(201);
    expect(session.body.data).toMatchObject({ mode: 'account', account_id: accountId, key_id: mgmt.keyId });
    const keys = await call(gw.url, 'GET', '/v1/keys', withCookie(session.cookie));
    expect(keys.status).toBe(200);
    expect(keys.body.data.map((k: { key_id: string }) => k.key_id).sort()).toEqual([mgmt.keyId, inference.keyId].sort());
    expect((await call(gw.url, 'GET', '/v1/credits', withCookie(session.cookie))).status).toBe(200);
    // Never an operator, never an inference caller.
    expect((await call(gw.url, 'GET', '/v1/admin/models', withCookie(session.cookie))).status).toBe(401);
    const chat = await call(gw.url, 'POST', '/v1/chat/completions', { ...withCookie(session.cookie, { origin: gw.url }), body: { model: 'local/echo-free', messages: [{ role: 'user', content: 'hi' }] } });
    expect(chat.status).toBe(401);
    // Disabling the management key ends the session.
    expect((await admin.call('PATCH', `/keys/${mgmt.keyId}`, { disabled: true })).status).toBe(200);
    await waitFor('the session to end', async () => (await call(gw.url, 'GET', '/v1/keys', withCookie(session.cookie))).status === 401, { timeoutMs: 1_000 });
    expect((await call(gw.url, 'GET', '/console/session', withCookie(session.cookie))).status).toBe(401);
  });

  it('signs out', async () => {
    const { cookie } = await signIn(TEST_ADMIN_TOKEN);
    expect((await call(gw.url, 'DELETE', '/console/session', withCookie(cookie))).status).toBe(403);
    const out = await fetch(`${gw.url}/console/session`, { method: 'DELETE', headers: { cookie, origin: gw.url } });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/fbx_console=;/);
    expect((await call(gw.url, 'GET', '/v1/admin/models', withCookie(cookie))).status).toBe(401);
  });

  it('refuses bad sign-ins with 401 and rate-limits repeated failures', async () => {
    const ip = { 'x-forwarded-for': '203.0.113.77' };
    const first = await signIn('wrong-token', ip);
    expect(first.status).toBe(401);
    expect(first.body.error.code).toBe('invalid_api_key');
    expect(first.setCookie).toBe('');
    expect((await signIn('', ip)).status).toBe(400);
    let last = first.status;
    for (let i = 0; i < 12; i++) last = (await signIn(`sk-fbx-${'x'.repeat(43)}`, ip)).status;
    expect(last).toBe(429);
    // Another address is not affected.
    expect((await signIn(TEST_ADMIN_TOKEN, { 'x-forwarded-for': '203.0.113.78' })).status).toBe(201);
  });
});

describe('operator listings', () => {
  it('lists accounts with balances and free-tier state, by pages and by search', async () => {
    const name = `list-${Date.now()}`;
    const ids = [await admin.createAccount(`${name}-a`), await admin.createAccount(`${name}-b`), await admin.createAccount(`${name}-c`)];
    await admin.topup(ids[0]!, 3);
    const first = await admin.call('GET', `/accounts?limit=2&q=${name}`);
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(2);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await admin.call('GET', `/accounts?limit=2&q=${name}&cursor=${first.body.next_cursor}`);
    const all = [...first.body.data, ...second.body.data];
    expect(all.map((a: { account_id: string }) => a.account_id)).toEqual([...ids].reverse());
    expect(second.body.next_cursor).toBeNull();
    const topped = all.find((a: { account_id: string }) => a.account_id === ids[0]);
    expect(topped).toMatchObject({ balance_usd: 3, free_tier: false });
    expect(all.find((a: { account_id: string }) => a.account_id === ids[1])).toMatchObject({ balance_usd: 0, free_tier: true });
    expect((await admin.call('GET', `/accounts?q=${ids[1]}`)).body.data.map((a: { account_id: string }) => a.account_id)).toEqual([ids[1]]);
    expect((await admin.call('GET', '/accounts?q=.*')).body.data).toEqual([]);
    expect((await admin.call('GET', '/accounts?limit=0')).status).toBe(400);
    expect((await admin.call('GET', '/accounts?cursor=nope')).status).toBe(400);
  });

  it("lists one account's keys and answers 404 for an unknown account", async () => {
    const accountId = await admin.createAccount();
    const key = await admin.mintKey(accountId, { name: 'listed' });
    const res = await admin.call('GET', `/accounts/${accountId}/keys`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([expect.objectContaining({ key_id: key.keyId, name: 'listed', label: expect.any(String) })]);
    expect(JSON.stringify(res.body)).not.toContain(key.raw);
    expect((await admin.call('GET', '/accounts/acct_nope/keys')).status).toBe(404);
  });
});

describe('queue dashboard', () => {
  it('needs the operator token or an operator session', async () => {
    expect((await fetch(`${gw.url}/admin/queues`)).status).toBe(401);
    expect((await fetch(`${gw.url}/admin/queues/api/queues`)).status).toBe(401);
    const page = await fetch(`${gw.url}/admin/queues`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(await page.text()).toContain('<html');
    const { cookie } = await signIn(TEST_ADMIN_TOKEN);
    const api = await fetch(`${gw.url}/admin/queues/api/queues`, { headers: { cookie } });
    expect(api.status).toBe(200);
    const body = (await api.json()) as { queues: { name: string }[] };
    expect(body.queues.map((q) => q.name).sort()).toEqual(['images', 'ocr']);
  });
});

describe('console page', () => {
  it('serves the page and its assets with a strict Content-Security-Policy', async () => {
    for (const path of ['/console', '/console/assets/main.js', '/console/assets/console.css', '/console/vendor/uPlot.iife.min.js']) {
      const res = await fetch(`${gw.url}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    }
    const html = await (await fetch(`${gw.url}/console`)).text();
    // No inline scripts or styles: every script has a src.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|style=/);
    expect((await fetch(`${gw.url}/console/assets/..%2F..%2Fconfig%2Fconfig.ts`)).status).toBe(404);
    expect((await fetch(`${gw.url}/console/assets/nope.js`)).status).toBe(404);
  });
});
