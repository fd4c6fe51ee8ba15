import { TARGETS } from './bench-targets.js';
import { BENCH_EMBEDDING_MODEL } from './bench-seed.js';
import { chatHeaders } from './chat-requests.js';
import type { Measurement } from './report-rows.js';
import { measured, settle, withCpu, type Endpoint, type ScenarioContext, type ScenarioOutput } from './scenario-context.js';
import { brief, runAutocannon } from './scenario-throughput.js';

/** Inputs per request (DESIGN §9: embeddings of 100 short inputs). */
export const EMBEDDING_INPUTS = 100;
/** Vector length asked for: text-embedding-3-small shortened, as retrieval setups often do. */
const DIMENSIONS = 256;
/** Connections of the closed-loop load: each answer is ~250 KB of JSON, so fewer than for chat. */
const CONNECTIONS = 32;

/** 100 short, distinct sentences as one `POST /v1/embeddings` body. */
export function embeddingsBody(): string {
  const input = Array.from({ length: EMBEDDING_INPUTS }, (_, i) => `Short passage number ${i} about invoices, refunds and shipping.`);
  return JSON.stringify({ model: BENCH_EMBEDDING_MODEL, input, dimensions: DIMENSIONS, encoding_format: 'float' });
}

async function maxThroughput(ctx: ScenarioContext, endpoint: Endpoint): Promise<Record<string, number>> {
  const seconds = ctx.plan.throughputSeconds;
  const options = { url: `${endpoint.url}/v1/embeddings`, method: 'POST' as const, headers: endpoint.headers, body: embeddingsBody(), connections: CONNECTIONS };
  await runAutocannon({ ...options, duration: Math.max(2, Math.ceil(seconds / 3)) });
  await settle(ctx);
  const result = await withCpu(ctx, `${endpoint.name} embeddings`, () => runAutocannon({ ...options, duration: seconds }));
  ctx.log(`${endpoint.name} embeddings: ${result.requests.average} req/s, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}, errors ${result.errors}`);
  await settle(ctx);
  return brief(result);
}

/**
 * Embeddings of 100 short inputs per request, closed loop: the bare proxy relaying the same
 * request to the mock beside Farebox's metered path (count, hold, call, charge, re-encode).
 * Portkey is not measured here (its route mapping differs); the rows say so.
 */
export async function embeddingsScenario(ctx: ScenarioContext): Promise<ScenarioOutput> {
  const headers = chatHeaders(ctx.stack.account.key);
  const endpoints: Endpoint[] = [
    { name: 'floor', url: ctx.stack.floorUrl, headers },
    { name: 'farebox', url: ctx.stack.webUrl, headers },
  ];
  const { value, steal } = await measured(ctx, 'embeddings', async () => {
    const out: Record<string, Record<string, number>> = {};
    for (const endpoint of endpoints) out[endpoint.name] = await maxThroughput(ctx, endpoint);
    return out;
  });
  const failed = (value.farebox?.non2xx ?? 0) + (value.farebox?.errors ?? 0);
  const row = (id: string, scenario: string, unit: string, key: string, extra: Partial<Measurement> = {}): Measurement => ({
    id,
    scenario,
    unit,
    floor: value.floor?.[key] ?? null,
    farebox: value.farebox?.[key] ?? null,
    portkey: null,
    portkeyNote: 'n/a — not measured for embeddings',
    steal,
    ...extra,
  });
  const rows: Measurement[] = [
    row('embeddings-throughput', `embeddings max throughput (${EMBEDDING_INPUTS} inputs/request)`, 'req/s', 'requestsPerSecond', { target: TARGETS.embeddingsThroughput, ...(failed > 0 ? { valid: false, note: `${failed} Farebox embeddings calls were not answered 2xx` } : {}) }),
    row('embeddings-p99', `embeddings p99 at max throughput (${EMBEDDING_INPUTS} inputs/request)`, 'ms', 'latencyP99Ms'),
  ];
  return { rows, details: { connections: CONNECTIONS, inputs: EMBEDDING_INPUTS, dimensions: DIMENSIONS, ...value } };
}
