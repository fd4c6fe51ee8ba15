import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSigningKeyPem } from '../../../src/ledger/receipts/receipt-keys.js';
import { adminClient, call } from '../../helpers/admin-client.js';
import { fareboxSchemaFor, fareboxSpecProblems, templateFor } from '../../helpers/farebox-spec.js';
import { answeredDocuments, type RecordedDocument } from '../../helpers/spec-recorder.js';
import { startTestGateway, testEnv, TEST_ADMIN_TOKEN, type TestGateway } from '../../helpers/test-gateway.js';
import { chat, fundedKey, type FundedKey } from '../chat/chat-client.js';
import { waitRecord } from '../ledger/records/records-client.js';

let gw: TestGateway;
let owner: FundedKey;
let management: string;
let requestId: string;
const HOOK = 'https://127.0.0.1:9/hook';

beforeAll(async () => {
  const env = testEnv({ RECEIPT_SIGNING_KEY: newSigningKeyPem(), RECEIPT_KEY_ID: 'openapi-test', WEBHOOK_ALLOW_LOOPBACK: 'true' });
  gw = await startTestGateway({ env });
  owner = await fundedKey(gw.url, 5);
  management = (await adminClient(gw.url).mintKey(owner.accountId, { role: 'management' })).raw;
  const res = await chat(gw.url, owner.raw, { model: 'local/echo', messages: [{ role: 'user', content: 'a record to look up' }] });
  expect(res.status).toBe(200);
  requestId = res.headers.get('x-service-request-id') ?? '';
  await waitRecord(gw.url, requestId);
}, 120_000);
afterAll(async () => gw?.close());

const op = (method: string, path: string, body?: unknown) => call(gw.url, method, `/v1/admin${path}`, { token: TEST_ADMIN_TOKEN, body });
const own = (token: string, method: string, path: string, body?: unknown) => call(gw.url, method, path, { token, body });

/** What the operator API answers over one account's life, each status as expected. */
async function operatorCalls(): Promise<void> {
  const created = await op('POST', '/accounts', { name: 'openapi' });
  expect(created.status).toBe(201);
  const account = created.body.data.account_id as string;
  expect((await op('POST', `/accounts/${account}/topups`, { amount_usd: 3, reference: 'inv-1' })).status).toBe(201);
  expect((await op('POST', `/accounts/${account}/topups`, { amount_usd: 3, reference: 'inv-1' })).status).toBe(200);
  expect((await op('POST', `/accounts/${account}/grants`, { amount_usd: '0.5', reference: 'promo-1' })).status).toBe(201);
  expect((await op('PUT', `/accounts/${account}/limits`, { rpm: 100, spend_cap_usd: { day: 2 } })).status).toBe(200);
  const minted = await op('POST', `/accounts/${account}/keys`, { name: 'k', limits: { rpm: 10, spend_cap_usd: { day: 1 }, models: ['local/echo'] } });
  expect(minted.status).toBe(201);
  const key = minted.body.data.key_id as string;
  for (const path of ['/accounts?limit=5', `/accounts/${account}`, `/accounts/${account}/ledger`, `/accounts/${account}/ledger/verify`, `/accounts/${account}/keys`, `/keys/${key}`]) {
    expect((await op('GET', path)).status, path).toBe(200);
  }
  expect((await op('PATCH', `/keys/${key}`, { name: 'renamed', disabled: true })).status).toBe(200);
  expect((await op('POST', `/keys/${key}/rotate`)).status).toBe(200);
  expect((await op('DELETE', `/keys/${key}`)).status).toBe(200);
  for (const path of ['/models', '/models/local/echo', `/requests?account_id=${owner.accountId}`, `/requests/${requestId}`, `/usage?account_id=${owner.accountId}`]) {
    expect((await op('GET', path)).status, path).toBe(200);
  }
  expect((await op('GET', '/accounts/acct_missing')).status).toBe(404);
  expect((await op('POST', `/accounts/${account}/topups`, { amount_usd: 1 })).status).toBe(400);
}

/** What a key's own routes answer: key, credits, records, usage, receipts, quote, counts, keys. */
async function keyCalls(): Promise<void> {
  for (const path of ['/v1/key', '/v1/credits', '/v1/requests', `/v1/requests/${requestId}`, `/v1/requests/${requestId}/receipt`]) {
    expect((await own(owner.raw, 'GET', path)).status, path).toBe(200);
  }
  for (const path of ['/v1/key', '/v1/keys', '/v1/usage']) expect((await own(management, 'GET', path)).status, path).toBe(200);
  const minted = await own(management, 'POST', '/v1/keys', { name: 'own' });
  expect(minted.status).toBe(201);
  const key = minted.body.data.key_id as string;
  expect((await own(management, 'GET', `/v1/keys/${key}`)).status).toBe(200);
  expect((await own(management, 'PATCH', `/v1/keys/${key}`, { limits: { rpm: 5 } })).status).toBe(200);
  expect((await own(management, 'POST', `/v1/keys/${key}/rotate`)).status).toBe(200);
  expect((await own(management, 'DELETE', `/v1/keys/${key}`)).status).toBe(200);
  const messages = { model: 'local/echo', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] };
  expect((await own(owner.raw, 'POST', '/v1/quote', { endpoint: 'chat/completions', body: { model: 'local/echo', messages: messages.messages } })).status).toBe(200);
  expect((await own(owner.raw, 'POST', '/v1/messages/count_tokens', messages)).status).toBe(200);
  expect((await own(owner.raw, 'POST', '/v1/responses/input_tokens', { model: 'local/echo', input: 'hi' })).status).toBe(200);
  expect((await own(owner.raw, 'GET', '/v1/requests/req_0000missing')).status).toBe(404);
  expect((await own('sk-fbx-not-a-key', 'GET', '/v1/key')).status).toBe(401);
}

/** Webhook endpoints and settings, for a management key and for the operator. */
async function webhookCalls(): Promise<void> {
  const sides = [
    { token: management, list: '/v1/webhooks', settings: '/v1/webhook-settings', item: '/v1/webhooks' },
    { token: TEST_ADMIN_TOKEN, list: `/v1/admin/accounts/${owner.accountId}/webhooks`, settings: `/v1/admin/accounts/${owner.accountId}/webhook-settings`, item: '/v1/admin/webhooks' },
  ];
  for (const side of sides) {
    const created = await own(side.token, 'POST', side.list, { url: HOOK, description: 'spec' });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    for (const path of [side.list, side.settings, `${side.item}/${id}`, `${side.item}/${id}/deliveries`]) expect((await own(side.token, 'GET', path)).status, path).toBe(200);
    expect((await own(side.token, 'PUT', side.settings, { balance_low_usd: 1 })).status).toBe(200);
    expect((await own(side.token, 'PATCH', `${side.item}/${id}`, { disabled: true, description: null })).status).toBe(200);
    expect((await own(side.token, 'POST', `${side.item}/${id}/rotate`)).status).toBe(200);
    expect((await own(side.token, 'DELETE', `${side.item}/${id}`)).status).toBe(200);
  }
}

describe("answers of Farebox's own API", () => {
  it('conform to the response schemas of /v1/openapi.json', async () => {
    answeredDocuments.splice(0);
    await operatorCalls();
    await keyCalls();
    await webhookCalls();
    for (const path of ['/v1/models', '/v1/models/local/echo', '/v1/models/local%2Fecho', '/v1/receipts/keys', '/healthz', '/readyz']) {
      expect((await call(gw.url, 'GET', path)).status, path).toBe(200);
    }
    const documents: RecordedDocument[] = answeredDocuments.splice(0);
    // Not vacuous: answers of most of the document's operations were checked.
    const validated = documents.filter((doc) => fareboxSchemaFor(doc.method, doc.path, doc.status) !== undefined);
    const checked = new Set(validated.map((doc) => `${doc.method} ${templateFor(doc.path)}`));
    expect(checked.size).toBeGreaterThan(45);
    expect(fareboxSpecProblems(documents)).toEqual([]);
  });

  it('fail the check when they differ from the document', () => {
    const wrong: RecordedDocument = { method: 'GET', path: '/v1/credits', status: 200, part: 'body', json: { data: { balance_usd: '5', free_tier: false } } };
    expect(fareboxSpecProblems([wrong])).toHaveLength(1);
    const error: RecordedDocument = { method: 'GET', path: '/v1/credits', status: 401, part: 'body', json: { message: 'no' } };
    expect(fareboxSpecProblems([error])).toHaveLength(1);
  });
});
