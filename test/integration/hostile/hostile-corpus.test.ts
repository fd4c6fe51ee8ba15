import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectWellFormed, HEALTH_BOUND_MS, parseBody, startEdgeWeb, whileProbing, type EdgeWeb } from '../../fuzz/edge-web.js';

/** JSON bodies above this are refused with 413 by the web under test. */
const JSON_LIMIT = 1024 * 1024;

let edge: EdgeWeb;
beforeAll(async () => {
  edge = await startEdgeWeb({ JSON_BODY_LIMIT_BYTES: String(JSON_LIMIT) });
}, 180_000);
afterAll(async () => edge?.close());

interface Sent {
  path: string;
  key?: string;
  contentType?: string;
  body?: string | Uint8Array | FormData;
  method?: string;
}

/** Sends one request while probing /healthz; checks the answer is well-formed and the web stayed responsive. */
async function send(what: string, req: Sent): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (req.key) headers.authorization = `Bearer ${req.key}`;
  if (req.contentType !== undefined) headers['content-type'] = req.contentType;
  const { result, worstProbeMs } = await whileProbing(edge.url, async () => {
    const res = await fetch(`${edge.url}${req.path}`, { method: req.method ?? 'POST', headers, body: req.body });
    return { status: res.status, headers: res.headers, body: parseBody(await res.text()) };
  });
  expectWellFormed(result.status, result.headers, result.body, what);
  expect(worstProbeMs, `${what}: slowest /healthz while in flight`).toBeLessThan(HEALTH_BOUND_MS);
  return result;
}

const chat = (body: Record<string, unknown>) => JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 16, ...body });

function nested(depth: number): string {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

describe('wrong content types are a 400, never a hang', () => {
  const multipart = () => {
    const form = new FormData();
    form.set('model', 'local/echo');
    return form;
  };
  it.each<[string, () => Sent]>([
    ['edits with JSON and an empty body', () => ({ path: '/v1/images/edits', contentType: 'application/json', body: '' })],
    ['edits with a JSON object', () => ({ path: '/v1/images/edits', contentType: 'application/json', body: '{"model":"local/canvas-image","prompt":"x"}' })],
    ['edits with text', () => ({ path: '/v1/images/edits', contentType: 'text/plain', body: 'hello' })],
    ['edits without a content type', () => ({ path: '/v1/images/edits', body: new TextEncoder().encode('hello') })],
    ['edits multipart without a boundary', () => ({ path: '/v1/images/edits', contentType: 'multipart/form-data', body: 'x' })],
    ['chat with multipart', () => ({ path: '/v1/chat/completions', body: multipart() })],
    ['chat with text', () => ({ path: '/v1/chat/completions', contentType: 'text/plain', body: chat({ model: 'local/echo' }) })],
    ['chat without a content type', () => ({ path: '/v1/chat/completions', body: new TextEncoder().encode(chat({ model: 'local/echo' })) })],
    ['generations with multipart', () => ({ path: '/v1/images/generations', body: multipart() })],
    ['OCR with text', () => ({ path: '/v1/ocr', contentType: 'text/plain', body: 'x' })],
    ['OCR with form-urlencoded', () => ({ path: '/v1/ocr', contentType: 'application/x-www-form-urlencoded', body: 'a=b' })],
  ])('%s', async (what, make) => {
    const res = await send(what, { key: edge.funded, ...make() });
    expect([res.status, res.body.error.code]).toEqual([400, 'invalid_request']);
  });
});

describe('size limits at the edge', () => {
  it('a JSON body over the limit → 413', async () => {
    const res = await send('big body', { path: '/v1/chat/completions', key: edge.funded, contentType: 'application/json', body: chat({ model: 'local/echo', user: 'u'.repeat(JSON_LIMIT) }) });
    expect([res.status, res.body.error.code]).toEqual([413, 'payload_too_large']);
  });

  it('JSON bodies over the limit get their 413 every time, never a reset (20 tries, sized and chunked)', async () => {
    const big = chat({ model: 'local/echo', user: 'u'.repeat(4 * JSON_LIMIT) });
    const failures: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      // A stream body has no declared length, so the limit is found while reading it.
      const body = i % 2 === 0 ? big : new Blob([big]).stream();
      const init = { method: 'POST', headers: { authorization: `Bearer ${edge.funded}`, 'content-type': 'application/json' }, body, duplex: 'half', signal: AbortSignal.timeout(5_000) } as RequestInit;
      const status = await fetch(`${edge.url}/v1/chat/completions`, init).then((res) => res.status, (err: unknown) => `${String(err)} ${String((err as { cause?: unknown }).cause)}`);
      if (status !== 413) failures.push(`try ${i}: ${status}`);
    }
    expect(failures).toEqual([]);
  });

  it.each([65, 1000, 200_000])('JSON nested %i levels deep → 400', async (depth) => {
    const body = `{"model":"local/echo","messages":[{"role":"user","content":"x"}],"metadata":${nested(depth)}}`;
    const res = await send(`depth ${depth}`, { path: '/v1/chat/completions', key: edge.funded, contentType: 'application/json', body });
    expect([res.status, res.body.error.code]).toEqual([400, 'invalid_request']);
    expect(res.body.error.message).toMatch(/nested deeper than 64/);
  });

  it('nesting just inside the limit is not refused for its depth', async () => {
    const body = `{"model":"local/echo","messages":[{"role":"user","content":"x"}],"metadata":${nested(60)}}`;
    const res = await send('depth 60', { path: '/v1/chat/completions', key: edge.funded, contentType: 'application/json', body });
    expect(res.body?.error?.message ?? '').not.toMatch(/nested deeper/);
  });

  it('an array over 10,000 items → 400 naming it', async () => {
    const messages = Array.from({ length: 10_001 }, () => ({ role: 'user', content: 'x' }));
    const res = await send('long array', { path: '/v1/chat/completions', key: edge.funded, contentType: 'application/json', body: JSON.stringify({ model: 'local/echo', messages }) });
    expect([res.status, res.body.error.code, res.body.error.param]).toEqual([400, 'invalid_request', 'messages']);
  });

  it('an operator body nested deeply → 400, not a stack overflow', async () => {
    const res = await send('admin depth', { path: '/v1/admin/accounts', key: 'test-admin-token-0123456789', contentType: 'application/json', body: `{"name":${nested(100_000)}}` });
    expect([res.status, res.body.error.code]).toEqual([400, 'invalid_request']);
  });
});

describe('long runs of one character', () => {
  const prompt = 'a'.repeat(100 * 1024);
  it('100 KB to a paid model from a free-tier key → 403', async () => {
    const res = await send('free tier', { path: '/v1/chat/completions', key: edge.freeTier, contentType: 'application/json', body: chat({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: prompt }] }) });
    expect([res.status, res.body.error.code]).toEqual([403, 'model_not_allowed']);
  });

  it('100 KB to local/echo from a funded key → 200', async () => {
    const res = await send('funded', { path: '/v1/chat/completions', key: edge.funded, contentType: 'application/json', body: chat({ model: 'local/echo', messages: [{ role: 'user', content: prompt }] }) });
    expect(res.status).toBe(200);
  });
});

describe('tool schemas that ask for huge output', () => {
  const tool = (schema: Record<string, unknown>) => [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { a: schema }, required: ['a'] } } }];
  // Schema-driven generation in the local echo model is bounded by max_tokens.
  it.each<[string, Record<string, unknown>]>([
    ['minLength 2,000,000', { type: 'string', minLength: 2_000_000 }],
    ['minItems 1e8', { type: 'array', items: { type: 'integer' }, minItems: 100_000_000 }],
  ])('%s with max_tokens 16 → 200 or 400, quickly bounded', async (what, schema) => {
    const res = await send(what, { path: '/v1/chat/completions', key: edge.funded, contentType: 'application/json', body: chat({ model: 'local/echo', tools: tool(schema), tool_choice: 'required' }) });
    expect([200, 400]).toContain(res.status);
    if (res.status === 200) expect(res.body.usage.completion_tokens).toBeLessThanOrEqual(16);
  });
});
