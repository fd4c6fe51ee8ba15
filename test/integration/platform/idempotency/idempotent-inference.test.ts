import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyStore } from '../../../../src/platform/idempotency/idempotency-store.js';
import { ResponseBlobs } from '../../../../src/platform/idempotency/response-blobs.js';
import { call } from '../../../helpers/admin-client.js';
import { startTestGateway, type TestGateway } from '../../../helpers/test-gateway.js';
import { fundedKey } from '../../chat/chat-client.js';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => gw?.close());

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function post(raw: string, path: string, body: unknown, headers: Record<string, string>, signal?: AbortSignal): Promise<Response> {
  return fetch(`${gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${raw}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal });
}

async function charges(accountId: string): Promise<number> {
  return gw.deps.c.ledger.countDocuments({ account_id: accountId, kind: 'charge' });
}

describe('Idempotency-Key on inference', () => {
  it('runs 20 concurrent requests with one key once, charges once, and answers all but the aborted one alike', async () => {
    const k = await fundedKey(gw.url, 5);
    const body = { model: 'local/echo', messages: [{ role: 'user', content: 'only once [[local:slow=40]] [[local:chunks=5]]' }] };
    const send = (i: number, signal?: AbortSignal) =>
      post(k.raw, '/v1/chat/completions', body, { 'Idempotency-Key': 'run-once-1', 'x-stainless-retry-count': String(i % 3) }, signal)
        .then(async (res) => ({ status: res.status, text: await res.text(), replayed: res.headers.get('idempotent-replayed') }))
        .catch(() => ({ status: 0, text: '', replayed: null }));
    // The first one claims the key; its client leaves in the middle of the run, while the 19
    // others wait for it: one of them then runs the request, the rest replay its answer.
    const aborter = new AbortController();
    const first = send(0, aborter.signal);
    await sleep(30);
    const others = Array.from({ length: 19 }, (_, i) => send(i + 1));
    await sleep(40);
    aborter.abort();
    expect((await first).status).toBe(0);
    const answered = await Promise.all(others);
    expect(answered.map((r) => r.status)).toEqual(Array(19).fill(200));
    expect(new Set(answered.map((r) => r.text)).size).toBe(1);
    expect(answered.filter((r) => r.replayed === 'true')).toHaveLength(18);
    expect(await charges(k.accountId)).toBe(1);
    const { usage } = JSON.parse(answered[0]!.text) as { usage: { cost: number } };
    const entry = await gw.deps.c.ledger.findOne({ account_id: k.accountId, kind: 'charge' });
    expect(BigInt(Math.round(usage.cost * 1e9))).toBe(entry?.cost);
    // A later retry, as an SDK sends it, gets the same answer and pays nothing.
    const later = await post(k.raw, '/v1/chat/completions', body, { 'Idempotency-Key': 'run-once-1', 'x-stainless-retry-count': '2' });
    expect(await later.text()).toBe(answered[0]!.text);
    expect(later.headers.get('idempotent-replayed')).toBe('true');
    expect(await charges(k.accountId)).toBe(1);
  });

  it('refuses the same key with another body, and keys are per account', async () => {
    const [a, b] = [await fundedKey(gw.url, 1), await fundedKey(gw.url, 1)];
    const body = { model: 'local/echo', messages: [{ role: 'user', content: 'first' }] };
    expect((await post(a.raw, '/v1/chat/completions', body, { 'Idempotency-Key': 'shared' })).status).toBe(200);
    const other = await post(a.raw, '/v1/chat/completions', { ...body, messages: [{ role: 'user', content: 'second' }] }, { 'Idempotency-Key': 'shared' });
    expect(other.status).toBe(409);
    expect(other.headers.get('x-should-retry')).toBe('false');
    expect(((await other.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: 'idempotency_key_reused', param: 'Idempotency-Key' });
    // Key order in JSON does not make another body.
    const reordered = await post(a.raw, '/v1/chat/completions', { messages: body.messages, model: body.model }, { 'Idempotency-Key': 'shared' });
    expect(reordered.headers.get('idempotent-replayed')).toBe('true');
    expect((await post(b.raw, '/v1/chat/completions', { ...body, messages: [{ role: 'user', content: 'mine' }] }, { 'Idempotency-Key': 'shared' })).status).toBe(200);
    expect(await charges(a.accountId)).toBe(1);
    expect(await charges(b.accountId)).toBe(1);
  });

  it('does not keep refusals, so a fixed request can use the key; rejects malformed keys', async () => {
    const k = await fundedKey(gw.url, 1);
    const bad = await post(k.raw, '/v1/chat/completions', { model: 'local/no-such-model', messages: [{ role: 'user', content: 'x' }] }, { 'Idempotency-Key': 'fix-me' });
    expect(bad.status).toBe(404);
    const fixed = await post(k.raw, '/v1/chat/completions', { model: 'local/echo', messages: [{ role: 'user', content: 'x' }] }, { 'Idempotency-Key': 'fix-me' });
    expect(fixed.status).toBe(200);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
    const tooLong = await post(k.raw, '/v1/chat/completions', { model: 'local/echo', messages: [{ role: 'user', content: 'x' }] }, { 'Idempotency-Key': 'k'.repeat(256) });
    expect(tooLong.status).toBe(400);
    expect(((await tooLong.json()) as { error: { param: string } }).error.param).toBe('Idempotency-Key');
  });

  it('answers 409 idempotency_in_progress to a stream replay while the first runs, and the stored chunks after', async () => {
    const k = await fundedKey(gw.url, 1);
    const body = { model: 'local/echo', stream: true, messages: [{ role: 'user', content: 'stream once [[local:slow=30]] [[local:chunks=6]]' }] };
    const first = post(k.raw, '/v1/chat/completions', body, { 'Idempotency-Key': 'stream-1' }).then(async (r) => ({ status: r.status, text: await r.text() }));
    await sleep(60);
    const during = await post(k.raw, '/v1/chat/completions', body, { 'Idempotency-Key': 'stream-1' });
    expect(during.status).toBe(409);
    expect(during.headers.get('retry-after')).toBe('1');
    expect(((await during.json()) as { error: { code: string } }).error.code).toBe('idempotency_in_progress');
    const done = await first;
    expect(done.status).toBe(200);
    expect(done.text).toContain('data: [DONE]');
    const after = await post(k.raw, '/v1/chat/completions', body, { 'Idempotency-Key': 'stream-1' });
    expect(after.headers.get('content-type')).toContain('text/event-stream');
    expect(await after.text()).toBe(done.text);
    expect(await charges(k.accountId)).toBe(1);
  });

  it('keeps a body over the inline bound in MongoDB by reference, and none over the stored bound', async () => {
    const blobs = new ResponseBlobs(gw.deps.c.idempotentBlobs);
    const store = new IdempotencyStore(gw.deps.redis, `${gw.config.redisPrefix}:small`, blobs, { keepMs: 60_000, runningMs: 60_000, inlineBytes: 100, maxBytes: 20_000_000 });
    const claim = { fingerprint: 'fp', owner: 'req_big', stream: false };
    expect(await store.claim('acct_x', 'big', claim)).toEqual({ kind: 'claimed' });
    const body = JSON.stringify({ data: [{ b64_json: 'A'.repeat(9_000_000) }] });
    await store.complete('acct_x', 'big', claim, { status: 200, contentType: 'application/json', body, requestId: 'req_big' });
    const raw = await gw.deps.redis.keys(`${gw.config.redisPrefix}:small:idem:*`);
    expect(raw).toHaveLength(1);
    expect(((await gw.deps.redis.get(raw[0]!)) ?? '').length).toBeLessThan(1_000);
    const again = await store.claim('acct_x', 'big', { ...claim, owner: 'req_other' });
    expect(again.kind === 'done' && again.response?.body === body).toBe(true);

    const huge = { ...claim, owner: 'req_huge' };
    expect(await store.claim('acct_x', 'huge', huge)).toEqual({ kind: 'claimed' });
    await store.complete('acct_x', 'huge', huge, { status: 200, contentType: 'application/json', body: 'x'.repeat(20_000_001), requestId: 'req_huge' });
    expect(await store.claim('acct_x', 'huge', { ...huge, owner: 'req_next' })).toEqual({ kind: 'done', response: undefined, size: 20_000_001 });
  });

  it('replays embeddings under a key and charges once; a max_cost below the hold refuses them', async () => {
    const k = await fundedKey(gw.url, 1);
    const body = { model: 'local/hashed-ngrams', input: 'the same words twice' };
    const first = await post(k.raw, '/v1/embeddings', body, { 'Idempotency-Key': 'embed-once' });
    expect(first.status).toBe(200);
    const again = await post(k.raw, '/v1/embeddings', body, { 'Idempotency-Key': 'embed-once' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(await first.text());
    expect(await charges(k.accountId)).toBe(1);
    const capped = await post(k.raw, '/v1/embeddings', { ...body, max_cost: '0.000000001' }, {});
    expect(capped.status).toBe(402);
    const refusal = ((await capped.json()) as { error: { code: string; quote: { hold_usd: string; lines: Array<{ component: string; amount_usd: string }> } } }).error;
    expect(refusal.code).toBe('max_cost_exceeded');
    expect(refusal.quote.lines.map((l) => [l.component, l.amount_usd])).toEqual([['prompt', refusal.quote.hold_usd]]);
    expect(await charges(k.accountId)).toBe(1);
  });
});
