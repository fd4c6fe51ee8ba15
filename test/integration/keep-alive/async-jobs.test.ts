import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_PNG_B64 } from '../../fixtures/upstreams/fake-openai-images.js';
import { call } from '../../helpers/admin-client.js';
import { waitFor } from '../../helpers/wait-for.js';
import { startKeepAliveSetup, type KeepAliveSetup } from './keep-alive-gateway.js';

let setup: KeepAliveSetup;
let key: { accountId: string; raw: string };

beforeAll(async () => {
  setup = await startKeepAliveSetup();
  key = await setup.warmKey();
}, 120_000);
afterAll(async () => {
  await setup?.close();
});

const ASYNC = { prefer: 'respond-async' };

/** Submits an image request that prefers an asynchronous answer. */
const submit = (model: string, headers: Record<string, string> = {}, token = key.raw) =>
  call(setup.router.url, 'POST', '/v1/images/generations', { token, body: { model, prompt: 'a lighthouse' }, headers: { ...ASYNC, ...headers } });

/** Polls a job through the router until it is no longer pending; returns its last answer. */
async function poll(location: string, token = key.raw) {
  let last = await call(setup.router.url, 'GET', location, { token });
  await waitFor('the job to finish', async () => {
    last = await call(setup.router.url, 'GET', location, { token });
    return last.status !== 202;
  }, { timeoutMs: 20_000, intervalMs: 100 });
  return last;
}

describe.concurrent('jobs a client can poll (Prefer: respond-async)', () => {
  it('answers 202 at once with Location, then the poll gives the synchronous body, charged once', async () => {
    const accepted = await submit('slow/image');
    expect(accepted.status).toBe(202);
    const id = accepted.headers.get('x-service-request-id');
    expect(accepted.headers.get('location')).toBe(`/v1/jobs/${id}`);
    expect(accepted.headers.get('preference-applied')).toBe('respond-async');
    expect(accepted.body).toMatchObject({ id, object: 'job', status: 'queued', kind: 'images' });
    const pending = await call(setup.router.url, 'GET', `/v1/jobs/${id}`, { token: key.raw });
    expect(pending.status).toBe(202);
    expect(['queued', 'running']).toContain(pending.body.status);
    const done = await poll(`/v1/jobs/${id}`);
    expect(done.status).toBe(200);
    expect(done.headers.get('x-farebox-job-status')).toBe('succeeded');
    expect(done.body.data[0].b64_json).toBe(FAKE_PNG_B64);
    expect(done.body.usage.cost).toBe(0.04);
    const charge = await setup.q.charge(id ?? '');
    expect(Number(charge?.cost) / 1e9).toBe(done.body.usage.cost);
  });

  it("another account's key gets 404, as does an unknown id", async () => {
    const accepted = await submit('slow/image');
    const other = await setup.q.fundedKey(1);
    const seen = await call(setup.router.url, 'GET', accepted.headers.get('location') ?? '', { token: other.raw });
    expect(seen.status).toBe(404);
    expect(seen.body.error.code).toBe('not_found');
    expect((await call(setup.router.url, 'GET', '/v1/jobs/req_unknown', { token: key.raw })).status).toBe(404);
    expect((await call(setup.router.url, 'GET', accepted.headers.get('location') ?? '')).status).toBe(401);
  });

  it('a failing job answers its error with the status it would have had; nothing charged', async () => {
    const accepted = await submit('slow/image-fails');
    expect(accepted.status).toBe(202);
    const done = await poll(accepted.headers.get('location') ?? '');
    expect(done.status).toBe(502);
    expect(done.headers.get('x-farebox-job-status')).toBe('failed');
    expect(done.body.error.code).toBe('upstream_error');
    expect(await setup.q.charge(accepted.headers.get('x-service-request-id') ?? '')).toBeNull();
  });

  it('hostile job ids and Prefer headers get a clear answer, never a 500', async () => {
    for (const id of ['x'.repeat(5_000), '%7B%7D%7Bslot%7D', '..%2F..%2Fadmin', '%00', 'req_' + '%F0%9F%94%A5'.repeat(50)]) {
      const res = await call(setup.router.url, 'GET', `/v1/jobs/${id}`, { token: key.raw });
      expect(res.status, id.slice(0, 40)).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    // Only the exact token asks for an async answer; anything else is the synchronous call.
    const odd = await call(setup.router.url, 'POST', '/v1/images/generations', { token: key.raw, body: { model: 'local/canvas-image', prompt: 'x', size: '64x64' }, headers: { prefer: 'respond-asyncx, wait=1;;,,' } });
    expect(odd.status).toBe(200);
    const listed = await submit('slow/image', { prefer: 'return=minimal, RESPOND-ASYNC ; wait=5' });
    expect(listed.status).toBe(202);
  });

  it('a refusal before the job is queued is the synchronous error, not a 202', async () => {
    const broke = await setup.q.fundedKey(0.000001);
    const refused = await submit('slow/image', {}, broke.raw);
    expect(refused.status).toBe(402);
    expect(refused.body.error.code).toBe('insufficient_credits');
  });

  it('the same Idempotency-Key returns the same job', async () => {
    const first = await submit('slow/image', { 'idempotency-key': 'async-once' });
    const again = await submit('slow/image', { 'idempotency-key': 'async-once' });
    expect(again.status).toBe(202);
    expect(again.body.id).toBe(first.body.id);
    await poll(first.headers.get('location') ?? '');
  });

  it('a client that never polls is charged once, exactly as a synchronous call; the answer expires', async () => {
    const accepted = await submit('slow/image');
    const id = accepted.headers.get('x-service-request-id') ?? '';
    await waitFor('the charge', async () => (await setup.q.charge(id)) !== null, { timeoutMs: 20_000, intervalMs: 100 });
    const sync = await call(setup.router.url, 'POST', '/v1/images/generations', { token: key.raw, body: { model: 'slow/image', prompt: 'a lighthouse' } });
    expect((await setup.q.charge(id))?.cost).toBe((await setup.q.charge(sync.headers.get('x-service-request-id') ?? ''))?.cost);
    const ttl = await setup.q.gw.deps.redis.pttl(`${setup.q.gw.config.redisPrefix}:async:{${id}}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(setup.q.gw.config.jobResultTtlMs);
  });
});
