import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectWellFormed, HEALTH_BOUND_MS, parseBody, startEdgeWeb, whileProbing, type EdgeWeb } from '../../fuzz/edge-web.js';

/**
 * Hostile embeddings requests against a spawned web: each gets a well-formed 4xx (or a 200)
 * while /healthz keeps answering, so no input can stall the event loop.
 */
let edge: EdgeWeb;
beforeAll(async () => {
  edge = await startEdgeWeb();
}, 180_000);
afterAll(async () => edge?.close());

async function send(what: string, body: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const { result, worstProbeMs } = await whileProbing(edge.url, async () => {
    const res = await fetch(`${edge.url}/v1/embeddings`, { method: 'POST', headers: { authorization: `Bearer ${edge.funded}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, headers: res.headers, body: parseBody(await res.text()) };
  });
  expectWellFormed(result.status, result.headers, result.body, what);
  expect(worstProbeMs, `${what}: slowest /healthz while in flight`).toBeLessThan(HEALTH_BOUND_MS);
  return result;
}

const MODEL = 'local/hashed-ngrams';

describe('hostile embeddings input', () => {
  it('8 MB of one character in one input → 400 naming it', async () => {
    const res = await send('8 MB run', { model: MODEL, input: ['ok', 'z'.repeat(8 * 1024 * 1024)] });
    expect([res.status, res.body.error.param]).toEqual([400, 'input[1]']);
  });

  it('inputs adding up to far more than 300,000 tokens → 400 on input', async () => {
    const res = await send('many long inputs', { model: MODEL, input: Array.from({ length: 100 }, (_, i) => `w${i} `.repeat(3_500)) });
    expect([res.status, res.body.error.param]).toEqual([400, 'input']);
  });

  it('2,048 inputs × 4,096 dimensions → 400 on dimensions, nothing charged', async () => {
    const res = await send('huge output', { model: MODEL, input: Array.from({ length: 2048 }, (_, i) => `item ${i}`), dimensions: 4096 });
    expect([res.status, res.body.error.param]).toEqual([400, 'dimensions']);
  });

  it('2,048 inputs × 384 dimensions as floats → 200 without blocking', async () => {
    const res = await send('full batch', { model: MODEL, input: Array.from({ length: 2048 }, (_, i) => `sentence ${i} with a handful of ordinary words in it`) });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(2048);
  });

  it('a long list of huge token ids → 200 (ids outside the vocabulary still embed)', async () => {
    const res = await send('odd ids', { model: MODEL, input: [Array.from({ length: 8000 }, (_, i) => 2 ** 31 - 1 - i)] });
    expect(res.status).toBe(200);
  });
});
