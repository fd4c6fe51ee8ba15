import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { resolveModel } from '../../../src/catalog/resolve-model.js';
import type { KeyDoc } from '../../../src/accounts/keys/key-types.js';
import { RedisAdmission } from '../../../src/admission/redis-admission.js';
import { call } from '../../helpers/admin-client.js';
import { startQueueGateway, type QueueGateway } from '../queue/queue-gateway.js';
import { fundedKey } from './chat-client.js';

// Spied before the gateway starts, so every call reaches the spy, admission's own included.
const authorize = vi.spyOn(RedisAdmission.prototype, 'authorize');
let q: QueueGateway;
beforeAll(async () => {
  q = await startQueueGateway();
}, 60_000);
afterAll(async () => {
  await q?.close();
  authorize.mockRestore();
});

it('a chat request is authorized once per model it names, admission included', async () => {
  const { raw } = await fundedKey(q.gw.url, 1);
  authorize.mockClear();
  const res = await call(q.gw.url, 'POST', '/v1/chat/completions', { token: raw, body: { model: 'local/echo', models: ['local/echo-free'], messages: [{ role: 'user', content: 'hi' }] } });
  expect(res.status).toBe(200);
  expect(authorize.mock.calls.map(([, model]) => model.id)).toEqual(['local/echo', 'local/echo-free']);
});

it('an image request is authorized once', async () => {
  const { raw } = await fundedKey(q.gw.url, 1);
  authorize.mockClear();
  const res = await call(q.gw.url, 'POST', '/v1/images/generations', { token: raw, body: { model: 'local/canvas-image', prompt: 'a kite', size: '64x64' } });
  expect(res.status).toBe(200);
  expect(authorize.mock.calls.map(([, model]) => model.id)).toEqual(['local/canvas-image']);
});

it('admission honours only proofs it gave out: a forged one is checked again and refused', async () => {
  const key = { _id: 'key_forged', account_id: 'acct_forged', role: 'inference', limits: { models: ['local/echo'] } } as unknown as KeyDoc;
  const model = resolveModel(q.gw.deps.catalog, 'local/echo-free', 'chat');
  const forged = { keyId: key._id, modelId: model.id };
  const admitted = q.gw.deps.admission.admit({ requestId: 'req_forged_proof', key, model, authorized: forged, estimate: 1n, stream: false });
  await expect(admitted).rejects.toMatchObject({ code: 'model_not_allowed' });
});
