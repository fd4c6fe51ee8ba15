import fc from 'fast-check';
import { agentDoorRequests } from './fuzz-agent-doors.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { solidPng } from '../fixtures/documents/test-images.js';
import { TEST_ADMIN_TOKEN } from '../helpers/test-gateway.js';
import { expectWellFormed, HEALTH_BOUND_MS, parseBody, probeHealth, readMetric, startEdgeWeb, whileProbing, type EdgeWeb } from './edge-web.js';
import {
  ceilingChatRequests,
  quoteRequests,
  receiptRequests,
  accountRequests,
  adminRequests,
  chatRequests,
  editRequests,
  generationRequests,
  modelRequests,
  ocrRequests,
  recordRequests,
  type FuzzKeys,
  type FuzzRequest,
} from './fuzz-arbitraries.js';
import { embeddingsRequests } from './fuzz-embeddings.js';

/**
 * Property-based fuzzing of every public endpoint against a spawned web over real Redis and
 * MongoDB. Budgets are run counts (no time limits), small enough for a loaded CI machine.
 * Each case must get a success or a 4xx from the error table in the error shape, with the
 * request id, and /healthz must keep answering while the case is in flight and after it.
 */
let edge: EdgeWeb;
let keys: FuzzKeys;
let png: Uint8Array;
const probes: number[] = [];
let cases = 0;
/** Answers seen per endpoint, as `status code`, so a run that never got past auth shows. */
const seen = new Map<string, Map<string, number>>();

function tally(path: string, status: number, body: unknown): void {
  const endpoint = path.replace(/\?.*$/, '').split('/').slice(0, 3).join('/');
  const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
  const label = `${status} ${typeof code === 'string' ? code : ''}`.trim();
  const counts = seen.get(endpoint) ?? new Map<string, number>();
  counts.set(label, (counts.get(label) ?? 0) + 1);
  seen.set(endpoint, counts);
}
let startedAt = 0;

beforeAll(async () => {
  edge = await startEdgeWeb();
  keys = { funded: edge.funded, freeTier: edge.freeTier, management: edge.management, admin: TEST_ADMIN_TOKEN };
  png = new Uint8Array(await solidPng(8, 8, { r: 10, g: 20, b: 30 }));
  startedAt = performance.now();
}, 180_000);

afterAll(async () => {
  if (edge) {
    const worstLoop = await readMetric(edge.url, 'farebox_event_loop_delay_max_seconds').catch(() => undefined);
    const sorted = [...probes].sort((a, b) => a - b);
    const at = (q: number) => (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(1);
    for (const [endpoint, counts] of seen) console.info(`fuzz ${endpoint}: ${[...counts].map(([k, n]) => `${k}×${n}`).join(', ')}`);
    console.info(
      `fuzz: ${cases} cases in ${((performance.now() - startedAt) / 1000).toFixed(1)} s; /healthz in flight p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms; web event-loop delay max ${worstLoop === undefined ? '?' : (worstLoop * 1000).toFixed(1)} ms`,
    );
  }
  await edge?.close();
});

async function check(req: FuzzRequest): Promise<number> {
  cases += 1;
  const what = `${req.method} ${req.path}`;
  const { result, worstProbeMs } = await whileProbing(edge.url, async () => {
    const res = await fetch(`${edge.url}${req.path}`, { method: req.method, headers: req.headers, body: req.body, signal: AbortSignal.timeout(60_000) });
    return { status: res.status, headers: res.headers, body: parseBody(await res.text()) };
  });
  probes.push(worstProbeMs);
  tally(req.path, result.status, result.body);
  expectWellFormed(result.status, result.headers, result.body, what);
  expect(worstProbeMs, `${what}: /healthz while in flight`).toBeLessThan(HEALTH_BOUND_MS);
  return result.status;
}

const property = (arbitrary: fc.Arbitrary<FuzzRequest>, numRuns: number) => fc.assert(fc.asyncProperty(arbitrary, async (req) => {
      await check(req);
    }), { numRuns, endOnFailure: true });

describe('fuzzing every public endpoint', () => {
  it('chat completions', async () => property(chatRequests(keys), 40));
  it('image generations', async () => property(generationRequests(keys), 25));
  it('image edits (multipart)', async () => property(editRequests(keys, png), 25));
  it('OCR', async () => property(ocrRequests(keys), 25));
  it('embeddings', async () => property(embeddingsRequests(keys), 30));
  it('key, credits and the management key API', async () => property(accountRequests(keys), 30));
  it('models', async () => property(modelRequests(), 25));
  it('operator API', async () => property(adminRequests(keys, { accountId: edge.fundedAccount, keyId: edge.spareKeyId }), 40));
  it('chat with Idempotency-Key and max_cost', async () => property(ceilingChatRequests(keys), 30));
  it('quotes', async () => property(quoteRequests(keys), 30));
  it('Messages and Responses doors and their token counts, seeded by real agent requests', async () => property(agentDoorRequests(keys), 40));
  it('receipts', async () => property(receiptRequests(keys), 20));
  it('request records, usage and CSV exports', async () => property(recordRequests(keys, { accountId: edge.fundedAccount, keyId: edge.spareKeyId }), 40));

  it('the harness reaches past validation (known-good requests pass the same checks)', async () => {
    const chat = JSON.stringify({ model: 'local/echo', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 });
    const json = { 'content-type': 'application/json' };
    const good: Array<[FuzzRequest, number]> = [
      [{ method: 'POST', path: '/v1/chat/completions', headers: { ...json, authorization: `Bearer ${keys.funded}` }, body: chat }, 200],
      [{ method: 'GET', path: '/v1/models/local/echo', headers: {} }, 200],
      [{ method: 'POST', path: '/v1/embeddings', headers: { ...json, authorization: `Bearer ${keys.funded}` }, body: JSON.stringify({ model: 'local/hashed-ngrams', input: ['hi', 'there'] }) }, 200],
      [{ method: 'GET', path: `/v1/admin/accounts/${edge.fundedAccount}`, headers: { authorization: `Bearer ${keys.admin}` } }, 200],
      [{ method: 'POST', path: '/v1/images/generations', headers: { ...json, authorization: `Bearer ${keys.freeTier}` }, body: JSON.stringify({ model: 'local/canvas-image', prompt: 'x' }) }, 403],
    ];
    for (const [req, status] of good) expect(await check(req), `${req.method} ${req.path}`).toBe(status);
  });

  it('the web is alive and responsive after the whole run', async () => {
    expect(cases).toBeGreaterThanOrEqual(244);
    const after = await probeHealth(edge.url);
    expect(after.status).toBe(200);
    expect(after.ms).toBeLessThan(HEALTH_BOUND_MS);
  });
});
