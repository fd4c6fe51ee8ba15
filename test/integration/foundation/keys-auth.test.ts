import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, call } from '../../helpers/admin-client.js';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.js';

let gw: TestGateway;
let admin: ReturnType<typeof adminClient>;
let accountId: string;

beforeAll(async () => {
  gw = await startTestGateway();
  admin = adminClient(gw.url);
  accountId = await admin.createAccount();
});
afterAll(async () => gw?.close());

function expect401(res: { status: number; headers: Headers; body: any }) {
  expect(res.status).toBe(401);
  expect(res.headers.get('x-service-request-id')).toMatch(/^req_[0-9a-f]+$/);
  expect(res.body).toEqual({
    error: { message: expect.any(String), type: 'authentication_error', code: 'invalid_api_key', param: null },
  });
}

describe('keys', () => {
  it('mints sk-fbx- keys with 43 base64url characters and stores only their SHA-256', async () => {
    const { keyId, raw } = await admin.mintKey(accountId);
    expect(raw).toMatch(/^sk-fbx-[A-Za-z0-9_-]{43}$/);
    const stored = await gw.deps.c.keys.findOne({ _id: keyId });
    expect(stored?.hash).toBe(createHash('sha256').update(raw).digest('hex'));
    const everyKeyDoc = JSON.stringify(await gw.deps.c.keys.find().toArray(), (_k, v) => (typeof v === 'bigint' ? String(v) : v));
    expect(everyKeyDoc).not.toContain(raw);
    expect(everyKeyDoc).not.toContain(raw.slice(7));
    const shown = await admin.call('GET', `/keys/${keyId}`);
    expect(JSON.stringify(shown.body)).not.toContain(raw.slice(7, 20));
    expect(shown.body.data.label).toMatch(/^sk-fbx-.{4}….{3}$/);
  });

  it('never writes a key to the logs, valid or not', async () => {
    const { raw } = await admin.mintKey(accountId);
    const forged = `sk-fbx-${'A'.repeat(43)}`;
    expect((await call(gw.url, 'GET', '/v1/key', { token: raw })).status).toBe(200);
    expect((await call(gw.url, 'GET', '/v1/credits', { token: forged })).status).toBe(401);
    expect((await call(gw.url, 'GET', '/v1/nope', { token: raw })).status).toBe(404);
    const logs = gw.logs();
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toContain(raw);
    expect(logs).not.toContain(raw.slice(7));
    expect(logs).not.toContain(forged);
  });

  it('answers 401 invalid_api_key for missing, malformed, unknown, disabled and expired keys', async () => {
    expect401(await call(gw.url, 'GET', '/v1/key'));
    expect401(await call(gw.url, 'GET', '/v1/key', { token: 'sk-fbx-short' }));
    expect401(await call(gw.url, 'GET', '/v1/key', { headers: { authorization: 'Basic abc' } }));
    expect401(await call(gw.url, 'GET', '/v1/key', { token: `sk-fbx-${'b'.repeat(43)}` }));

    const disabled = await admin.mintKey(accountId);
    expect((await call(gw.url, 'GET', '/v1/key', { token: disabled.raw })).status).toBe(200);
    expect((await admin.call('PATCH', `/keys/${disabled.keyId}`, { disabled: true })).status).toBe(200);
    const refused = await call(gw.url, 'GET', '/v1/key', { token: disabled.raw });
    expect401(refused);
    expect(JSON.stringify(refused.body)).not.toContain(disabled.raw);

    const past = new Date(Date.now() - 1000).toISOString();
    const stillborn = await admin.call('POST', `/accounts/${accountId}/keys`, { name: 'late', expires_at: past });
    expect(stillborn.status).toBe(400);
    expect(stillborn.body.error).toMatchObject({ type: 'invalid_request_error', param: 'expires_at' });
    expect(stillborn.body.error.message).toContain('future');

    // An update may end a key at a past instant.
    const expired = await admin.mintKey(accountId);
    expect((await admin.call('PATCH', `/keys/${expired.keyId}`, { expires_at: past })).status).toBe(200);
    expect401(await call(gw.url, 'GET', '/v1/credits', { token: expired.raw }));
  });

  it('rotates a key: new secret, same id and limits, old secret refused', async () => {
    const old = await admin.mintKey(accountId, { limits: { rpm: 7, models: ['local/echo'] } });
    const rotated = await admin.call('POST', `/keys/${old.keyId}/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.key).not.toBe(old.raw);
    expect(rotated.body.data.limits).toEqual({ rpm: 7, models: ['local/echo'] });
    expect(rotated.body.data.key_id).toBe(old.keyId);
    expect401(await call(gw.url, 'GET', '/v1/key', { token: old.raw }));
    const info = await call(gw.url, 'GET', '/v1/key', { token: rotated.body.key });
    expect(info.status).toBe(200);
    expect(info.body.data.limits.rpm).toBe(7);
  });

  it('lets management keys manage only their own account and refuses them on models', async () => {
    const mgmt = await admin.mintKey(accountId, { role: 'management' });
    const created = await call(gw.url, 'POST', '/v1/keys', { token: mgmt.raw, body: { name: 'child', limits: { rpm: 3 } } });
    expect(created.status).toBe(201);
    expect(created.body.data.account_id).toBe(accountId);
    const listed = await call(gw.url, 'GET', '/v1/keys', { token: mgmt.raw });
    expect(listed.body.data.map((k: any) => k.key_id)).toContain(created.body.data.key_id);

    const other = await admin.createAccount('other');
    const foreign = await admin.mintKey(other);
    expect((await call(gw.url, 'GET', `/v1/keys/${foreign.keyId}`, { token: mgmt.raw })).status).toBe(404);
    expect((await call(gw.url, 'DELETE', `/v1/keys/${foreign.keyId}`, { token: mgmt.raw })).status).toBe(404);

    const inference = created.body.key as string;
    const denied = await call(gw.url, 'GET', '/v1/keys', { token: inference });
    expect(denied.status).toBe(403);
    expect(denied.body.error.type).toBe('permission_error');

    const deleted = await call(gw.url, 'DELETE', `/v1/keys/${created.body.data.key_id}`, { token: mgmt.raw });
    expect(deleted.status).toBe(200);
    expect401(await call(gw.url, 'GET', '/v1/key', { token: inference }));
  });
});
