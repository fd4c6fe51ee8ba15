import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textPdf } from '../../../fixtures/documents/test-pdfs.js';
import { adminClient, call } from '../../../helpers/admin-client.js';
import { chat, fundedKey, streamChat, type FundedKey } from '../../chat/chat-client.js';
import { startQueueGateway, type QueueGateway } from '../../queue/queue-gateway.js';
import { adminGet, adminText, keyGet, waitRecord } from './records-client.js';

const RETENTION_DAYS = 7;
let q: QueueGateway;
let url: string;
let owner: FundedKey;
let stranger: FundedKey;
let management: string;
const ids: Record<string, string> = {};

const rid = (res: { headers: Headers }) => res.headers.get('x-service-request-id') ?? '';

beforeAll(async () => {
  q = await startQueueGateway({ env: { REQUEST_RECORD_RETENTION_DAYS: String(RETENTION_DAYS) } });
  url = q.gw.url;
  owner = await fundedKey(url, 5, { limits: { models: ['local/echo', 'local/instant-image'] } });
  stranger = await fundedKey(url, 5);
  management = (await adminClient(url).mintKey(owner.accountId, { role: 'management' })).raw;

  const plain = await chat(url, owner.raw, { model: 'local/echo', messages: [{ role: 'user', content: 'hello records' }] });
  expect(plain.status).toBe(200);
  ids.plain = rid(plain);
  const streamed = await streamChat(url, owner.raw, { model: 'local/echo', messages: [{ role: 'user', content: 'stream me [[local:chunks=3]]' }] });
  expect(streamed.status).toBe(200);
  ids.stream = rid(streamed);
  const refused = await chat(url, owner.raw, { model: 'local/echo-free', messages: [{ role: 'user', content: 'not allowed' }] });
  expect(refused.status).toBe(403);
  ids.refused = rid(refused);
  const image = await call(url, 'POST', '/v1/images/generations', { token: owner.raw, body: { model: 'local/instant-image', prompt: 'a dot', size: '256x256' } });
  expect(image.status).toBe(200);
  ids.image = rid(image);
  const anonymous = await chat(url, 'sk-fbx-nope', { model: 'local/echo', messages: [{ role: 'user', content: 'who' }] });
  expect(anonymous.status).toBe(401);
  ids.anonymous = rid(anonymous);
  for (const id of [ids.plain, ids.stream, ids.refused, ids.image]) await waitRecord(url, id ?? '');
  // Another key of the same account, for the key filter.
  const other = await adminClient(url).mintKey(owner.accountId);
  for (let i = 0; i < 3; i += 1) expect((await chat(url, other.raw, { model: 'local/echo', messages: [{ role: 'user', content: `other ${i}` }] })).status).toBe(200);
  ids.otherKey = other.keyId;
}, 120_000);
afterAll(async () => q?.close());

describe('request records', () => {
  it('a billed chat has a record matching its ledger charge, for the operator and the owning account', async () => {
    const record = await waitRecord(url, ids.plain ?? '');
    const charge = await q.gw.deps.c.ledger.findOne({ _id: ids.plain ?? '' });
    expect(charge).not.toBeNull();
    expect(record).toMatchObject({
      id: ids.plain, account_id: owner.accountId, key_id: owner.keyId, endpoint: '/v1/chat/completions',
      model: 'local/echo', provider: 'local', stream: false, status: 200, error_code: null,
      usage: { input_tokens: charge?.units?.prompt, output_tokens: charge?.units?.completion },
    });
    expect(BigInt(Math.round(record.cost_usd * 1e9))).toBe(charge?.cost);
    expect(record.latency_ms).toBeGreaterThanOrEqual(0);
    expect(Date.parse(record.created_at)).not.toBeNaN();
    const own = await keyGet(url, owner.raw, `/v1/requests/${ids.plain}`);
    expect(own.status).toBe(200);
    expect(own.body.data).toEqual(record);
    expect((await keyGet(url, management, `/v1/requests/${ids.plain}`)).status).toBe(200);
  });

  it('a stream, a refusal and an image are recorded; another account gets 404', async () => {
    const stream = await waitRecord(url, ids.stream ?? '');
    expect(stream).toMatchObject({ stream: true, status: 200, model: 'local/echo' });
    expect(stream.cost_usd).toBeGreaterThan(0);
    const refused = await waitRecord(url, ids.refused ?? '');
    expect(refused).toMatchObject({ status: 403, error_code: 'model_not_allowed', model: 'local/echo-free', cost_usd: 0, usage: {} });
    const image = await waitRecord(url, ids.image ?? '');
    expect(image).toMatchObject({ endpoint: '/v1/images/generations', model: 'local/instant-image', usage: { images: 1 }, status: 200 });
    for (const id of [ids.plain, ids.stream, ids.refused]) {
      const res = await keyGet(url, stranger.raw, `/v1/requests/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect((await adminGet(url, '/requests/req_doesnotexist')).status).toBe(404);
  });

  it('an unauthenticated refusal is not recorded', async () => {
    await q.gw.deps.requests.drain();
    expect((await adminGet(url, `/requests/${ids.anonymous}`)).status).toBe(404);
  });

  it('lists newest first with filters and cursor paging across pages', async () => {
    const all: Array<Record<string, any>> = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await keyGet(url, management, `/v1/requests?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      all.push(...res.body.data);
      cursor = res.body.next_cursor;
      pages += 1;
    } while (cursor !== null);
    expect(all).toHaveLength(7);
    expect(pages).toBe(4);
    expect(new Set(all.map((r) => r.id)).size).toBe(7);
    const times = all.map((r) => Date.parse(r.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);

    const own = await keyGet(url, owner.raw, '/v1/requests?limit=50');
    expect(own.body.data.map((r: any) => r.key_id)).toEqual(Array(4).fill(owner.keyId));
    expect((await keyGet(url, owner.raw, `/v1/requests?key_id=${ids.otherKey}`)).status).toBe(403);
    const byKey = await keyGet(url, management, `/v1/requests?key_id=${ids.otherKey}`);
    expect(byKey.body.data).toHaveLength(3);
    const byModel = await adminGet(url, `/requests?account_id=${owner.accountId}&model=local/instant-image`);
    expect(byModel.body.data.map((r: any) => r.id)).toEqual([ids.image]);
    const future = await adminGet(url, `/requests?account_id=${owner.accountId}&from=2999-01-01`);
    expect(future.body.data).toEqual([]);
    expect((await keyGet(url, stranger.raw, '/v1/requests')).body.data).toEqual([]);
  });

  it('rejects bad query parameters with 400 and the parameter', async () => {
    for (const [query, param] of [['limit=0', 'limit'], ['from=yesterday', 'from'], ['cursor=%%%', 'cursor'], ['key_id=x', 'key_id'], ['limit=1&limit=2', 'limit']] as const) {
      const res = await adminGet(url, `/requests?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.param, query).toBe(param);
    }
    expect((await keyGet(url, owner.raw, '/v1/usage')).status).toBe(403);
    // A management key names only its own account; another one is refused, not answered with its own figures.
    const other = await keyGet(url, management, `/v1/usage?account_id=${stranger.accountId}`);
    expect(other.status).toBe(403);
    expect(other.body.error).toMatchObject({ code: 'permission_denied', param: 'account_id' });
    expect((await keyGet(url, management, `/v1/usage?account_id=${owner.accountId}`)).status).toBe(200);
  });

  it('usage per day and model equals the ledger', async () => {
    const res = await keyGet(url, management, '/v1/usage');
    expect(res.status).toBe(200);
    const charges = await q.gw.deps.c.ledger.find({ account_id: owner.accountId, kind: 'charge' }).toArray();
    const byModel = new Map<string, { requests: number; cost: bigint; input: number; output: number }>();
    for (const c of charges) {
      const row = byModel.get(c.model ?? '') ?? { requests: 0, cost: 0n, input: 0, output: 0 };
      row.requests += 1;
      row.cost += c.cost;
      row.input += c.units?.prompt ?? 0;
      row.output += c.units?.completion ?? 0;
      byModel.set(c.model ?? '', row);
    }
    const today = new Date().toISOString().slice(0, 10);
    expect(res.body.data).toEqual(
      [...byModel].sort(([a], [b]) => a.localeCompare(b)).map(([model, r]) => ({
        date: today, model, requests: r.requests, cost_usd: Number(r.cost) / 1e9, input_tokens: r.input, output_tokens: r.output,
      })),
    );
    const admin = await adminGet(url, `/usage?account_id=${owner.accountId}&from=${today}&to=${today}`);
    expect(admin.body.data).toEqual(res.body.data);
  });

  it('exports records and the ledger as CSV that parses back', async () => {
    const records = await adminText(url, `/v1/admin/requests.csv?account_id=${owner.accountId}`);
    expect(records.status).toBe(200);
    expect(records.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(records.headers.get('content-disposition')).toMatch(/^attachment; filename="requests.csv"/);
    const rows = parse(records.text, { columns: true }) as Array<Record<string, string>>;
    expect(rows).toHaveLength(7);
    const plain = rows.find((r) => r.id === ids.plain);
    const record = await waitRecord(url, ids.plain ?? '');
    expect(plain).toMatchObject({ key_id: owner.keyId, model: 'local/echo', status: '200', stream: 'false', cost_usd: String(record.cost_usd) });

    const ledger = await adminText(url, `/v1/admin/ledger.csv?account_id=${owner.accountId}`);
    const entries = parse(ledger.text, { columns: true }) as Array<Record<string, string>>;
    const docs = await q.gw.deps.c.ledger.find({ account_id: owner.accountId }).toArray();
    expect(entries.map((e) => e.id).sort()).toEqual(docs.map((d) => d._id).sort());
    expect(entries.find((e) => e.kind === 'topup')?.credit_usd).toBe('5');
    expect((await adminText(url, '/v1/admin/ledger.csv?from=nope')).status).toBe(400);
  });

  it('keeps records for the configured retention (TTL index)', async () => {
    const indexes = await q.gw.deps.c.requestRecords.listIndexes().toArray();
    const ttl = indexes.find((i) => i.expireAfterSeconds !== undefined);
    expect(ttl?.key).toEqual({ created_at: -1 });
    expect(ttl?.expireAfterSeconds).toBe(RETENTION_DAYS * 86_400);
  });

  it('metrics show outcomes by endpoint, model and code, never key or account ids', async () => {
    const { text } = await adminText(url, '/metrics');
    expect(text).toMatch(/farebox_requests_total\{endpoint="\/v1\/chat\/completions",model="local\/echo",provider="local",status="200"\} [1-9]/);
    expect(text).toMatch(/farebox_refusals_total\{endpoint="\/v1\/chat\/completions",code="model_not_allowed"\} 1/);
    expect(text).toMatch(/farebox_refusals_total\{endpoint="\/v1\/chat\/completions",code="invalid_api_key"\} 1/);
    expect(text).toMatch(/farebox_tokens_total\{model="local\/echo",provider="local",direction="output"\} [1-9]/);
    expect(text).toMatch(/farebox_media_units_total\{model="local\/instant-image",provider="local",unit="image"\} 1/);
    expect(text).toMatch(/farebox_spend_usd_total\{model="local\/echo",provider="local"\} 0\.0/);
    expect(text).toMatch(/farebox_request_records_dropped_total 0/);
    for (const id of [owner.accountId, owner.keyId, stranger.accountId, ids.otherKey ?? 'x', 'acct_', 'key_']) expect(text).not.toContain(id);
  });
});

describe('the other fronts', () => {
  it('Responses, Messages (stream) and OCR requests are recorded with their usage', async () => {
    const fronts = await fundedKey(url, 5);
    const responses = await call(url, 'POST', '/v1/responses', { token: fronts.raw, body: { model: 'local/echo', input: 'hi there' } });
    expect(responses.status).toBe(200);
    const messages = await fetch(`${url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': fronts.raw, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'local/echo', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hello' }] }),
    });
    await messages.text();
    const doc = (await textPdf([['Page one'], ['Page two']])).toString('base64');
    const pdf = await call(url, 'POST', '/v1/ocr', { token: fronts.raw, body: { model: 'local/reader', document: { type: 'document_url', document_url: `data:application/pdf;base64,${doc}` } } });
    expect(pdf.status).toBe(200);
    const r = await waitRecord(url, rid(responses));
    expect(r).toMatchObject({ endpoint: '/v1/responses', model: 'local/echo', stream: false, status: 200 });
    expect(r.usage.output_tokens).toBeGreaterThan(0);
    const m = await waitRecord(url, rid(messages));
    expect(m).toMatchObject({ endpoint: '/v1/messages', stream: true, status: 200 });
    expect(m.cost_usd).toBeGreaterThan(0);
    const o = await waitRecord(url, rid(pdf));
    expect(o).toMatchObject({ endpoint: '/v1/ocr', model: 'local/reader', status: 200, usage: { pages: 2 } });
  });
});

describe('an unknown model', () => {
  it('keeps the requested name on the record but labels metrics "other"', async () => {
    const res = await chat(url, stranger.raw, { model: '=acme/cmd', messages: [{ role: 'user', content: 'x' }] });
    expect(res.status).toBe(404);
    const record = await waitRecord(url, rid(res));
    expect(record).toMatchObject({ model: '=acme/cmd', provider: null, error_code: 'model_not_found' });
    const { text } = await adminText(url, '/metrics');
    expect(text).not.toContain('acme');
    expect(text).toMatch(/farebox_requests_total\{endpoint="\/v1\/chat\/completions",model="other",provider="other",status="404"\} 1/);
    const csv = await adminText(url, `/v1/admin/requests.csv?account_id=${stranger.accountId}`);
    expect((parse(csv.text, { columns: true }) as Array<Record<string, string>>)[0]?.model).toBe("'=acme/cmd");
  });
});

