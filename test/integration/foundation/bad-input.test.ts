import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, call } from '../../helpers/admin-client.js';
import { startTestGateway, testEnv, TEST_ADMIN_TOKEN, type TestGateway } from '../../helpers/test-gateway.js';

let gw: TestGateway;
let accountId: string;

beforeAll(async () => {
  gw = await startTestGateway({ env: testEnv({ JSON_BODY_LIMIT_BYTES: '4096' }) });
  accountId = await adminClient(gw.url).createAccount();
});
afterAll(async () => gw?.close());

const admin = (method: string, path: string, rawBody?: string) =>
  call(gw.url, method, `/v1/admin${path}`, { token: TEST_ADMIN_TOKEN, rawBody });

describe('bad input', () => {
  it.each([
    ['malformed JSON', '{"amount_usd": 1,', 'invalid_request', null],
    ['wrong type', '{"amount_usd": true, "reference": "r"}', 'invalid_request', 'amount_usd'],
    ['negative amount', '{"amount_usd": -5, "reference": "r"}', 'invalid_request', 'amount_usd'],
    ['zero amount', '{"amount_usd": 0, "reference": "r"}', 'invalid_request', 'amount_usd'],
    ['non-numeric amount', '{"amount_usd": "ten", "reference": "r"}', 'invalid_request', 'amount_usd'],
    ['absurd precision', '{"amount_usd": 1.0000000001, "reference": "r"}', 'invalid_request', 'amount_usd'],
    ['absurd size', '{"amount_usd": 1e30, "reference": "r"}', 'invalid_request', 'amount_usd'],
    ['missing reference', '{"amount_usd": 1}', 'invalid_request', 'reference'],
    ['unknown field', '{"amount_usd": 1, "reference": "r", "x": 1}', 'invalid_request', null],
    ['JSON array', '[1,2]', 'invalid_request', null],
  ])('top-up with %s → 400', async (_name, body, code, param) => {
    const res = await admin('POST', `/accounts/${accountId}/topups`, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(code);
    if (param) expect(res.body.error.param).toBe(param);
    expect((await gw.deps.accounts.get(accountId)).balance).toBe(0n);
  });

  it('refuses a huge body with 413', async () => {
    const huge = JSON.stringify({ name: 'x'.repeat(gw.config.limits.jsonBodyBytes + 10) });
    const res = await admin('POST', '/accounts', huge);
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });

  it('answers unknown routes, wrong methods and preflights with the request id', async () => {
    const missing = await call(gw.url, 'GET', '/v1/does-not-exist');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toEqual({ message: expect.any(String), type: 'invalid_request_error', code: 'not_found', param: null });
    expect(missing.headers.get('x-service-request-id')).toMatch(/^req_/);

    const wrongMethod = await call(gw.url, 'DELETE', '/v1/models');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body.error.code).toBe('method_not_allowed');
    expect(wrongMethod.headers.get('x-service-request-id')).toMatch(/^req_/);

    const preflight = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: { origin: 'https://example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-api-key,anthropic-version,content-type,x-stainless-os' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    // Browser SDKs (Anthropic's x-api-key, OpenAI's x-stainless-*) pass the preflight.
    expect(preflight.headers.get('access-control-allow-headers')).toBe('x-api-key,anthropic-version,content-type,x-stainless-os');
    expect(preflight.headers.get('x-service-request-id')).toMatch(/^req_/);
  });

  it('refuses operator routes without the operator token and bad key bodies with the field named', async () => {
    expect((await call(gw.url, 'POST', '/v1/admin/accounts', { body: {} })).status).toBe(401);
    expect((await call(gw.url, 'POST', '/v1/admin/accounts', { body: {}, token: 'wrong-token-wrong-token' })).status).toBe(401);
    const badLimits = await admin('POST', `/accounts/${accountId}/keys`, JSON.stringify({ name: 'k', limits: { rpm: -1 } }));
    expect(badLimits.status).toBe(400);
    expect(badLimits.body.error.param).toBe('limits.rpm');
    const badCap = await admin('POST', `/accounts/${accountId}/keys`, JSON.stringify({ name: 'k', limits: { spend_cap_usd: { day: 'lots' } } }));
    expect(badCap.status).toBe(400);
    expect(badCap.body.error.param).toBe('limits.spend_cap_usd.day');
    expect((await admin('GET', '/accounts/acct_missing')).status).toBe(404);
    expect((await admin('GET', `/accounts/${accountId}/ledger?limit=abc`)).status).toBe(400);
    expect((await admin('GET', `/accounts/${accountId}/ledger?cursor=%%%`)).status).toBe(400);
  });
});
