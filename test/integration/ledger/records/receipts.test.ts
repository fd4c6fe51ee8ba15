import { createPublicKey, verify, type JsonWebKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSigningKeyPem } from '../../../../src/ledger/receipts/receipt-keys.js';
import { adminClient } from '../../../helpers/admin-client.js';
import { startTestGateway, testEnv, type TestGateway } from '../../../helpers/test-gateway.js';
import { chat, fundedKey, streamChat, type FundedKey } from '../../chat/chat-client.js';
import { keyGet, waitRecord } from './records-client.js';

let gw: TestGateway;
let owner: FundedKey;
let management: string;
const ids: string[] = [];
const KID = 'receipts-test-1';

beforeAll(async () => {
  gw = await startTestGateway({ env: testEnv({ RECEIPT_SIGNING_KEY: newSigningKeyPem(), RECEIPT_KEY_ID: KID }) });
  owner = await fundedKey(gw.url, 5);
  management = (await adminClient(gw.url).mintKey(owner.accountId, { role: 'management' })).raw;
  const plain = await chat(gw.url, owner.raw, { model: 'local/echo', messages: [{ role: 'user', content: 'receipt please' }] });
  expect(plain.status).toBe(200);
  const streamed = await streamChat(gw.url, owner.raw, { model: 'local/echo', messages: [{ role: 'user', content: 'stream [[local:chunks=3]]' }] });
  expect(streamed.status).toBe(200);
  for (const res of [plain, streamed]) ids.push(res.headers.get('x-service-request-id') ?? '');
  for (const id of ids) await waitRecord(gw.url, id);
}, 60_000);
afterAll(async () => gw?.close());

/** What a client does with nothing but the published keys: plain node:crypto. */
async function clientVerifies(signed: { kid: string; payload: string; signature: string }): Promise<boolean> {
  const jwks = (await (await fetch(`${gw.url}/v1/receipts/keys`)).json()) as { keys: Array<JsonWebKey & { kid: string }> };
  const jwk = jwks.keys.find((k) => k.kid === signed.kid);
  if (!jwk) return false;
  const key = createPublicKey({ key: jwk, format: 'jwk' });
  return verify(null, Buffer.from(signed.payload), key, Buffer.from(signed.signature, 'base64url'));
}

describe('signed receipts', () => {
  it('serves the public key as a JWKS with its key id, and nothing private', async () => {
    const res = await fetch(`${gw.url}/v1/receipts/keys`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { keys: Array<Record<string, unknown>> };
    expect(body.keys).toHaveLength(1);
    expect(body.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', kid: KID, alg: 'EdDSA' });
    expect(body.keys[0]).not.toHaveProperty('d');
    expect(gw.logs()).not.toContain('PRIVATE KEY');
  });

  it('gives a charged request a receipt that matches its ledger entry and verifies with only the public key', async () => {
    for (const id of ids) {
      const res = await keyGet(gw.url, owner.raw, `/v1/requests/${id}/receipt`);
      expect(res.status).toBe(200);
      const { receipt, ...signed } = res.body.data;
      expect(await clientVerifies(signed)).toBe(true);
      const entry = await gw.deps.c.ledger.findOne({ _id: id });
      expect(receipt).toMatchObject({
        request_id: id, account_id: owner.accountId, key_id: owner.keyId, model: 'local/echo',
        route: { endpoint: '/v1/chat/completions', provider: 'local' }, token_source: 'upstream', outcome: 'completed',
        price_version: gw.deps.catalog.get('local/echo')!.priceVersion, prev_ledger_hash: entry?.prev_hash, ledger_hash: entry?.hash,
      });
      const lines = receipt.cost_details as Array<{ component: string; amount_usd: string }>;
      expect(lines.map((l) => l.component).sort()).toEqual(['completion', 'prompt']);
      const sum = lines.reduce((s, l) => s + BigInt(Math.round(Number(l.amount_usd) * 1e9)), 0n);
      expect(sum).toBe(entry?.cost);
      expect(BigInt(Math.round(Number(receipt.cost_usd) * 1e9))).toBe(entry?.cost);
    }
  });

  it('says the tokens were counted when a stream broke before the upstream reported usage', async () => {
    // Its own account, so the export below still lists only the owner's two.
    const other = await fundedKey(gw.url, 1);
    const broken = await streamChat(gw.url, other.raw, { model: 'local/echo', messages: [{ role: 'user', content: 'one two three four [[local:chunks=4]] [[local:fail-after=2]]' }] });
    expect(broken.status).toBe(200);
    const id = broken.headers.get('x-service-request-id') ?? '';
    await waitRecord(gw.url, id);
    const res = await keyGet(gw.url, other.raw, `/v1/requests/${id}/receipt`);
    expect(res.status).toBe(200);
    expect(res.body.data.receipt).toMatchObject({ request_id: id, token_source: 'counted' });
  });

  it('fails verification once anything in it is changed', async () => {
    const { receipt, ...signed } = (await keyGet(gw.url, owner.raw, `/v1/requests/${ids[0]}/receipt`)).body.data;
    const cheaper = JSON.stringify({ ...receipt, cost_usd: '0.000000001' });
    expect(await clientVerifies({ ...signed, payload: cheaper })).toBe(false);
    const sig = Buffer.from(signed.signature, 'base64url');
    sig[5] = (sig[5] ?? 0) ^ 1;
    expect(await clientVerifies({ ...signed, signature: sig.toString('base64url') })).toBe(false);
  });

  it('shows a receipt only to the owning account and exports them all as JSON lines for a management key', async () => {
    const stranger = await fundedKey(gw.url, 1);
    expect((await keyGet(gw.url, stranger.raw, `/v1/requests/${ids[0]}/receipt`)).status).toBe(404);
    expect((await keyGet(gw.url, management, `/v1/requests/${ids[1]}/receipt`)).status).toBe(200);
    const denied = await fetch(`${gw.url}/v1/receipts/export`, { headers: { authorization: `Bearer ${owner.raw}` } });
    expect(denied.status).toBe(403);
    const res = await fetch(`${gw.url}/v1/receipts/export`, { headers: { authorization: `Bearer ${management}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/x-ndjson');
    const lines = (await res.text()).trim().split('\n').map((l) => JSON.parse(l) as { kid: string; payload: string; signature: string; receipt: { request_id: string } });
    expect(lines.map((l) => l.receipt.request_id).sort()).toEqual([...ids].sort());
    for (const line of lines) expect(await clientVerifies(line)).toBe(true);
  });
});
