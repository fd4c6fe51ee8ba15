import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdmissionRequest } from '../../../src/admission/admission-types.js';
import { textPdf } from '../../fixtures/documents/test-pdfs.js';
import { solidPng } from '../../fixtures/documents/test-images.js';
import { adminClient } from '../../helpers/admin-client.js';
import { startQueueGateway, type QueueGateway } from '../queue/queue-gateway.js';

let q: QueueGateway;
let raw: string;
let png: Buffer;
let pdf: string;
/** The estimate admission was asked to hold, by request id. */
const held = new Map<string, bigint>();

beforeAll(async () => {
  q = await startQueueGateway();
  raw = (await q.fundedKey(50)).raw;
  png = await solidPng(32, 32, { r: 200, g: 10, b: 10 });
  pdf = `data:application/pdf;base64,${(await textPdf([['one'], ['two'], ['three']])).toString('base64')}`;
  // Every front door reaches this one admission (through the ceiling and record wrappers).
  const admission = q.gw.deps.admission;
  const admit = admission.admit.bind(admission);
  admission.admit = (request: AdmissionRequest) => {
    held.set(request.requestId, request.estimate);
    return admit(request);
  };
}, 60_000);
afterAll(async () => q?.close());

const nano = (usd: string) => {
  const [whole, fraction = ''] = usd.split('.');
  return BigInt(whole ?? '0') * 1_000_000_000n + BigInt(fraction.padEnd(9, '0') || '0');
};

interface Case {
  endpoint: string;
  body: Record<string, unknown>;
  /** Sends the request itself, with an optional max_cost. */
  send(key: string, maxCost?: string): Promise<Response>;
}

const json = (path: string, body: Record<string, unknown>) => (key: string, maxCost?: string) =>
  fetch(`${q.gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(maxCost ? { ...body, max_cost: maxCost } : body) });

function cases(): Case[] {
  const chat = { model: 'local/echo', max_tokens: 50, messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'quote me' }] };
  const stream = { ...chat, stream: true };
  // Tools with schemas, a response schema and an image all count towards the hold: the quote must count them alike.
  const rich = {
    ...chat,
    tools: [{ type: 'function', function: { name: 'lookup', description: 'finds a thing', parameters: { type: 'object', properties: { q: { type: 'string', description: 'what to find' } }, required: ['q'] } } }],
    response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object', properties: { text: { type: 'string' } } } } },
    messages: [...chat.messages, { role: 'user', content: [{ type: 'text', text: 'and this' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } }] }],
  };
  const responses = { model: 'local/echo', input: 'quote me too', max_output_tokens: 40 };
  const messages = { model: 'local/echo', max_tokens: 30, messages: [{ role: 'user', content: 'and me' }] };
  const images = { model: 'local/canvas-image', prompt: 'a dot', n: 2, size: '64x64' };
  const ocr = { model: 'local/reader', document: { type: 'document_url', document_url: pdf } };
  const editFields = { model: 'local/canvas-image', prompt: 'make it blue', size: '64x64' };
  const edit = (key: string, maxCost?: string) => {
    const form = new FormData();
    for (const [k, v] of Object.entries(editFields)) form.append(k, v);
    for (let i = 0; i < 2; i++) form.append('image[]', new Blob([png], { type: 'image/png' }), `in${i}.png`);
    return fetch(`${q.gw.url}/v1/images/edits`, { method: 'POST', headers: { authorization: `Bearer ${key}`, ...(maxCost ? { 'x-max-cost': maxCost } : {}) }, body: form });
  };
  return [
    { endpoint: '/v1/chat/completions', body: chat, send: json('/v1/chat/completions', chat) },
    { endpoint: '/v1/chat/completions', body: stream, send: json('/v1/chat/completions', stream) },
    { endpoint: '/v1/chat/completions', body: rich, send: json('/v1/chat/completions', rich) },
    { endpoint: '/v1/responses', body: responses, send: json('/v1/responses', responses) },
    { endpoint: '/v1/messages', body: messages, send: json('/v1/messages', messages) },
    { endpoint: '/v1/images/generations', body: images, send: json('/v1/images/generations', images) },
    { endpoint: '/v1/images/edits', body: { ...editFields, reference_images: 2 }, send: edit },
    { endpoint: '/v1/ocr', body: ocr, send: json('/v1/ocr', ocr) },
  ];
}

async function quote(key: string, endpoint: string, body: Record<string, unknown>): Promise<any> {
  const res = await fetch(`${q.gw.url}/v1/quote`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ endpoint, body }) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: unknown }).data;
}

const rid = (res: Response) => res.headers.get('x-service-request-id') ?? '';

describe('POST /v1/quote and max_cost', () => {
  it('quotes exactly the hold admission then places, line by line, for every endpoint', async () => {
    for (const c of cases()) {
      const quoted = await quote(raw, c.endpoint, c.body);
      expect(quoted.lines.reduce((s: bigint, l: { amount_usd: string }) => s + nano(l.amount_usd), 0n)).toBe(nano(quoted.hold_usd));
      expect(quoted).toMatchObject({ fits: true, largest_fit: null, checks: { balance: { fits: true } } });
      expect(quoted.price_version).toBe(q.gw.deps.catalog.get(quoted.model)?.priceVersion);
      const res = await c.send(raw);
      await res.text();
      expect([c.endpoint, res.status]).toEqual([c.endpoint, 200]);
      expect([c.endpoint, held.get(rid(res))]).toEqual([c.endpoint, nano(quoted.hold_usd)]);
    }
  });

  it('refuses a request whose hold is above its max_cost with 402 and the quote, on every endpoint, charging nothing', async () => {
    for (const c of cases()) {
      const quoted = await quote(raw, c.endpoint, c.body);
      const below = (nano(quoted.hold_usd) - 1n).toString().padStart(10, '0');
      const maxCost = `${below.slice(0, -9)}.${below.slice(-9)}`;
      const res = await c.send(raw, maxCost);
      const body = (await res.json()) as { error: { code: string; param: string; quote: { hold_usd: string; lines: unknown[]; max_cost_usd: string } } };
      expect([c.endpoint, res.status, body.error.code, body.error.param]).toEqual([c.endpoint, 402, 'max_cost_exceeded', 'max_cost']);
      expect(body.error.quote).toMatchObject({ hold_usd: quoted.hold_usd, lines: quoted.lines });
      expect(nano(body.error.quote.max_cost_usd)).toBe(nano(quoted.hold_usd) - 1n);
      expect(await q.charge(rid(res))).toBeNull();
      // At the hold itself it fits, and the charge stays within it.
      const ok = await c.send(raw, quoted.hold_usd);
      await ok.text();
      expect([c.endpoint, ok.status]).toEqual([c.endpoint, 200]);
      const charge = await q.charge(rid(ok));
      expect(charge!.cost).toBeLessThanOrEqual(nano(quoted.hold_usd));
    }
  });

  it('applies a key max_cost_per_request to every request of the key, and the quote says which limit fails', async () => {
    const admin = adminClient(q.gw.url);
    const accountId = await admin.createAccount();
    await admin.topup(accountId, 5);
    const capped = (await admin.mintKey(accountId, { limits: { max_cost_per_request: 0.001 } })).raw;
    const images = cases().find((c) => c.endpoint === '/v1/images/generations')!;
    const quoted = await quote(capped, images.endpoint, images.body);
    expect(nano(quoted.hold_usd)).toBeGreaterThan(1_000_000n);
    expect(quoted).toMatchObject({ fits: false, checks: { max_cost_per_request: { fits: false, room_usd: '0.001' }, balance: { fits: true } }, largest_fit: { n: 0 } });
    const res = await images.send(capped);
    expect(res.status).toBe(402);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('max_cost_exceeded');
  });

  it('says the largest max_tokens that fits the balance, and that one does fit', async () => {
    const admin = adminClient(q.gw.url);
    const accountId = await admin.createAccount();
    await admin.topup(accountId, '0.00005');
    const poor = (await admin.mintKey(accountId)).raw;
    const body = { model: 'local/echo', messages: [{ role: 'user', content: 'how much can I get' }] };
    const quoted = await quote(poor, '/v1/chat/completions', body);
    expect(quoted).toMatchObject({ fits: false, checks: { balance: { fits: false, room_usd: '0.00005' } } });
    const most = quoted.largest_fit.max_tokens as number;
    expect(most).toBeGreaterThan(0);
    expect((await quote(poor, 'chat/completions', { ...body, max_tokens: most })).fits).toBe(true);
    expect((await quote(poor, 'chat/completions', { ...body, max_tokens: most + 1 })).fits).toBe(false);
    // Nothing was held or charged by quoting.
    expect(await q.gw.deps.c.ledger.countDocuments({ account_id: accountId, kind: 'charge' })).toBe(0);
  });

  it('answers bad quotes with a 400 and needs an inference key', async () => {
    const bad = await fetch(`${q.gw.url}/v1/quote`, { method: 'POST', headers: { authorization: `Bearer ${raw}`, 'content-type': 'application/json' }, body: JSON.stringify({ endpoint: '/v1/embeddings-nope', body: {} }) });
    expect(bad.status).toBe(400);
    const anonymous = await fetch(`${q.gw.url}/v1/quote`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ endpoint: 'ocr', body: {} }) });
    expect(anonymous.status).toBe(401);
  });
});
