import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, call } from '../../helpers/admin-client.js';
import { spawnWeb, type WebProcess } from '../../helpers/spawn-web.js';
import { startTestGateway, testEnv, TEST_ADMIN_TOKEN, type TestGateway } from '../../helpers/test-gateway.js';
import { waitFor } from '../../helpers/wait-for.js';
import { spawnWorker, type WorkerProcess } from '../../e2e/images/spawn-worker.js';
import { createSelfSignedCertificate } from '../../fixtures/documents/self-signed-cert.js';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../../fixtures/webhooks/webhook-receiver.js';

interface Verified {
  id: string;
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
  msgId: string;
}

let gateway: TestGateway;
let web: WebProcess;
let worker: WorkerProcess;
let receiver: WebhookReceiver;
let admin: ReturnType<typeof adminClient>;

const MAX_ATTEMPTS = 4;

beforeAll(async () => {
  const certificate = createSelfSignedCertificate(['localhost'], ['127.0.0.1']);
  const certFile = join(mkdtempSync(join(tmpdir(), 'farebox-webhook-ca-')), 'receiver.pem');
  writeFileSync(certFile, certificate.cert);
  receiver = await startWebhookReceiver(certificate);
  const env = testEnv({
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    WEBHOOK_RETRY_BASE_MS: '300',
    WEBHOOK_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
    WEBHOOK_SWEEP_MS: '300',
  });
  gateway = await startTestGateway({ env, jobs: {} });
  admin = adminClient(gateway.url);
  // The worker trusts the receiver's self-signed certificate the way Node trusts any extra CA.
  // One at a time, with room to spare: a busy machine starts a process slowly.
  worker = await spawnWorker({ ...env, NODE_EXTRA_CA_CERTS: certFile }, 240_000);
  web = await spawnWeb(env, 240_000);
}, 600_000);

afterAll(async () => {
  await Promise.all([web?.stop(), worker?.stop()]);
  await gateway?.close();
  await receiver?.close();
});

/** Verifies one received request with the Standard Webhooks library; throws when it does not verify. */
function verify(secret: string, request: ReceivedWebhook): Verified {
  const payload = new Webhook(secret).verify(request.body, request.headers) as Omit<Verified, 'msgId'>;
  return { ...payload, msgId: request.headers['webhook-id'] ?? '' };
}

function receivedFor(accountId: string): ReceivedWebhook[] {
  return receiver.received.filter((r) => (JSON.parse(r.body) as { data: { account_id?: string } }).data.account_id === accountId);
}

/** An account with a webhook endpoint (registered by the operator) and its secret. */
async function accountWithEndpoint(events?: string[]): Promise<{ accountId: string; endpointId: string; secret: string }> {
  const accountId = await admin.createAccount();
  const res = await admin.call('POST', `/accounts/${accountId}/webhooks`, { url: receiver.url, ...(events ? { events } : {}) });
  expect(res.status).toBe(201);
  return { accountId, endpointId: res.body.data.id as string, secret: res.body.secret as string };
}

async function deliveries(endpointId: string): Promise<Array<Record<string, unknown>>> {
  const res = await admin.call('GET', `/webhooks/${endpointId}/deliveries?limit=100`);
  expect(res.status).toBe(200);
  return res.body.data as Array<Record<string, unknown>>;
}

describe('an account that spends its way down', () => {
  it('gets topup.completed, then budget.threshold and balance.low once each and balance.depleted, each signed, under a 100-way burst on two webs', async () => {
    const { accountId, endpointId, secret } = await accountWithEndpoint();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect((await admin.call('PUT', `/accounts/${accountId}/webhook-settings`, { balance_low_usd: 0.005 })).body.data).toEqual({ balance_low_usd: 0.005 });
    expect((await admin.topup(accountId, 0.01, 'first')).status).toBe(201);
    // 100 images at $0.0001 spend the balance to exactly zero; the key's cap ($0.015) sees
    // 50 % and 66 %, never 80 %.
    const key = await admin.mintKey(accountId, { limits: { spend_cap_usd: { lifetime: 0.015 } } });

    const burst = Array.from({ length: 100 }, (_, i) =>
      call(i % 2 === 0 ? gateway.url : web.url, 'POST', '/v1/images/generations', { token: key.raw, body: { model: 'local/instant-image', prompt: `burst ${i}` } }),
    );
    const answers = await Promise.all(burst);
    expect(answers.map((r) => r.status)).toEqual(Array(100).fill(200));
    expect((await gateway.deps.c.accounts.findOne({ _id: accountId }))?.balance).toBe(0n);

    const events = await waitFor('four events at the receiver', () => {
      const got = receivedFor(accountId);
      return got.length >= 4 && got;
    }, { timeoutMs: 90_000, detail: () => worker.output() });
    // Nothing more trickles in: once per crossing, not once per request or per web.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const verified = receivedFor(accountId).map((r) => verify(secret, r));
    expect(verified.map((v) => v.type).sort()).toEqual(['balance.depleted', 'balance.low', 'budget.threshold', 'topup.completed']);
    expect(events.every((r) => r.answered === 200)).toBe(true);
    const byType = Object.fromEntries(verified.map((v) => [v.type, v]));
    expect(byType['topup.completed']?.data).toMatchObject({ account_id: accountId, amount_usd: 0.01, reference: 'first' });
    expect(byType['budget.threshold']?.data).toMatchObject({ key_id: key.keyId, window: 'lifetime', threshold_percent: 50, cap_usd: 0.015 });
    expect(byType['balance.low']?.data).toMatchObject({ threshold_usd: 0.005 });
    expect(byType['balance.depleted']?.data).toMatchObject({ balance_usd: 0 });
    expect(Date.parse(byType['balance.low']?.timestamp ?? '')).toBeLessThanOrEqual(Date.parse(byType['balance.depleted']?.timestamp ?? ''));
    for (const v of verified) expect(v.msgId).toBe(v.id);

    const log = await deliveries(endpointId);
    expect(log).toHaveLength(4);
    expect(log.every((d) => d.status === 'succeeded' && d.attempts === 1 && d.response_code === 200)).toBe(true);
  }, 240_000);
});

describe('a receiver that fails', () => {
  it('gets the same signed message again with backoff until it answers 2xx; the log shows the attempts', async () => {
    const { accountId, endpointId, secret } = await accountWithEndpoint(['key.rotated']);
    const key = await admin.mintKey(accountId);
    let failures = 0;
    receiver.answer = (_headers, body) => {
      if (!body.includes(accountId)) return 200;
      return failures++ < 2 ? 503 : 200;
    };
    const rotated = await admin.call('POST', `/keys/${key.keyId}/rotate`);
    expect(rotated.status).toBe(200);
    const got = await waitFor('a third attempt', () => receivedFor(accountId).length >= 3 && receivedFor(accountId), { timeoutMs: 90_000 });
    receiver.answer = () => 200;
    expect(got.map((r) => r.answered)).toEqual([503, 503, 200]);
    const verified = got.map((r) => verify(secret, r));
    expect(new Set(verified.map((v) => v.msgId)).size).toBe(1);
    expect(verified[0]?.type).toBe('key.rotated');
    expect(verified[0]?.data).toMatchObject({ key_id: key.keyId });
    const [delivery] = await waitFor('the delivery marked succeeded', async () => {
      const log = await deliveries(endpointId);
      return log[0]?.status === 'succeeded' && log;
    });
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 3, response_code: 200, type: 'key.rotated' });
  }, 120_000);

  it('marks a delivery failed after its last attempt, and a replay delivers it once the receiver is back', async () => {
    const { accountId, endpointId, secret } = await accountWithEndpoint(['key.disabled']);
    const key = await admin.mintKey(accountId);
    receiver.answer = (_headers, body) => (body.includes(accountId) ? 500 : 200);
    expect((await admin.call('PATCH', `/keys/${key.keyId}`, { disabled: true })).status).toBe(200);
    const [failed] = await waitFor('the delivery marked failed', async () => {
      const log = await deliveries(endpointId);
      return log[0]?.status === 'failed' && log;
    }, { timeoutMs: 90_000 });
    expect(failed).toMatchObject({ attempts: MAX_ATTEMPTS, response_code: 500, last_error: 'receiver answered HTTP 500' });
    expect(receivedFor(accountId)).toHaveLength(MAX_ATTEMPTS);

    receiver.answer = () => 200;
    const replay = await admin.call('POST', `/webhooks/${endpointId}/deliveries/${String(failed?.id)}/replay`);
    expect(replay.status).toBe(202);
    const [done] = await waitFor('the replay delivered', async () => {
      const log = await deliveries(endpointId);
      return log[0]?.status === 'succeeded' && log;
    }, { timeoutMs: 90_000 });
    expect(done).toMatchObject({ attempts: MAX_ATTEMPTS + 1, replays: 1, response_code: 200 });
    const last = receivedFor(accountId).at(-1);
    expect(last?.answered).toBe(200);
    expect(verify(secret, last as ReceivedWebhook).type).toBe('key.disabled');
  }, 120_000);
});

describe('key expiry and secret rotation', () => {
  it('reports an expired key once, signed with both secrets while a rotation is fresh', async () => {
    const { accountId, endpointId, secret: oldSecret } = await accountWithEndpoint(['key.expired']);
    const rotated = await admin.call('POST', `/webhooks/${endpointId}/rotate`);
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.secret as string;
    expect(newSecret).not.toBe(oldSecret);
    const key = await admin.mintKey(accountId, { expires_at: new Date(Date.now() + 1_000).toISOString() });
    const [got] = await waitFor('key.expired', () => receivedFor(accountId).length > 0 && receivedFor(accountId), { timeoutMs: 90_000 });
    // Several sweeps run meanwhile; the expiry is still one event.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receivedFor(accountId)).toHaveLength(1);
    expect(verify(newSecret, got as ReceivedWebhook).data).toMatchObject({ key_id: key.keyId });
    expect(verify(oldSecret, got as ReceivedWebhook).type).toBe('key.expired');
    expect(() => verify('whsec_' + Buffer.alloc(32, 7).toString('base64'), got as ReceivedWebhook)).toThrow();
  }, 120_000);
});

describe('the endpoint API', () => {
  it('lets a management key manage its own endpoints only and never shows a secret twice', async () => {
    const { accountId } = await accountWithEndpoint();
    const other = await accountWithEndpoint();
    const manager = await admin.mintKey(accountId, { role: 'management' });
    const created = await call(gateway.url, 'POST', '/v1/webhooks', { token: manager.raw, body: { url: receiver.url, events: ['topup.completed'] } });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    const list = await call(gateway.url, 'GET', '/v1/webhooks', { token: manager.raw });
    expect(list.body.data).toHaveLength(2);
    expect(JSON.stringify(list.body)).not.toContain('whsec_');
    expect((await call(gateway.url, 'GET', `/v1/webhooks/${other.endpointId}`, { token: manager.raw })).status).toBe(404);
    expect((await call(gateway.url, 'GET', `/v1/webhooks/${other.endpointId}/deliveries`, { token: manager.raw })).status).toBe(404);
    const inference = await admin.mintKey(accountId);
    expect((await call(gateway.url, 'GET', '/v1/webhooks', { token: inference.raw })).status).toBe(403);
    expect((await call(gateway.url, 'GET', '/v1/webhooks')).status).toBe(401);
    const settings = await call(gateway.url, 'PUT', '/v1/webhook-settings', { token: manager.raw, body: { balance_low_usd: '2.5' } });
    expect(settings.body.data).toEqual({ balance_low_usd: 2.5 });
    expect(gateway.logs()).not.toContain(created.body.secret as string);
  });

  it('refuses URLs the outbound rules refuse, with a 400 naming url', async () => {
    const accountId = await admin.createAccount();
    for (const url of ['http://127.0.0.1:9/hook', 'https://10.0.0.1/hook', 'https://169.254.169.254/latest', 'https://user:pw@127.0.0.1/x', 'not a url']) {
      const res = await call(gateway.url, 'POST', `/v1/admin/accounts/${accountId}/webhooks`, { token: TEST_ADMIN_TOKEN, body: { url } });
      expect(res.status, url).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'url' });
    }
    const bad = await call(gateway.url, 'POST', `/v1/admin/accounts/${accountId}/webhooks`, { token: TEST_ADMIN_TOKEN, body: { url: receiver.url, events: ['nope'] } });
    expect(bad.status).toBe(400);
    expect((await call(gateway.url, 'POST', '/v1/admin/accounts/acct_missing/webhooks', { token: TEST_ADMIN_TOKEN, body: { url: receiver.url } })).status).toBe(404);
  });
});
