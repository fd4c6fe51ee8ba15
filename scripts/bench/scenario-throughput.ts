import autocannon, { type Options, type Result } from 'autocannon';
import { TARGETS } from './bench-targets.js';
import { chatBody } from './chat-requests.js';
import { round3 } from './latency-stats.js';
import type { Measurement } from './report-rows.js';
import { chatEndpoints, measured, portkeyAbsence, settle, withCpu, type Endpoint, type EndpointName, type ScenarioContext, type ScenarioOutput } from './scenario-context.js';
import { perRequest, readStoreCounters } from './store-counters.js';

/** Runs autocannon to the end. */
export function runAutocannon(options: Options): Promise<Result> {
  return new Promise((resolve, reject) => {
    autocannon({ timeout: 10, ...options }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

/** A non-streamed chat call to `endpoint` as autocannon options. */
export function chatRequest(endpoint: Endpoint): Options {
  return { url: `${endpoint.url}/v1/chat/completions`, method: 'POST', headers: endpoint.headers, body: chatBody({ stream: false }) };
}

/** The figures of one autocannon run kept in bench-results.json. */
export function brief(result: Result): Record<string, number> {
  return {
    requestsPerSecond: round3(result.requests.average),
    completed: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    latencyMaxMs: result.latency.max,
    seconds: result.duration,
  };
}

/** Closed-loop max throughput of non-streamed chat, after a warm-up with the same load. */
async function maxThroughput(ctx: ScenarioContext, endpoint: Endpoint): Promise<Record<string, number>> {
  const { throughputSeconds: seconds, throughputConnections: connections } = ctx.plan;
  const options = { ...chatRequest(endpoint), connections };
  await runAutocannon({ ...options, duration: Math.max(2, Math.ceil(seconds / 3)) });
  const counters = () => readStoreCounters(ctx.stack.mongoUri, ctx.stack.redisUrl);
  const before = endpoint.name === 'farebox' ? await counters() : undefined;
  await settle(ctx);
  const result = await withCpu(ctx, `${endpoint.name} max throughput`, () => runAutocannon({ ...options, duration: seconds }));
  const storeOps = before ? perRequest(before, await counters(), result['2xx']) : {};
  ctx.log(`${endpoint.name} max throughput: ${result.requests.average} req/s, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}, errors ${result.errors}${before ? `; store ops/request ${JSON.stringify(storeOps)}` : ''}`);
  await settle(ctx);
  return { ...brief(result), ...storeOps };
}

function best(rounds: Array<Record<string, number>>): Record<string, number> | undefined {
  if (rounds.length === 0) return undefined;
  return rounds.reduce((a, b) => ((b.requestsPerSecond ?? 0) > (a.requestsPerSecond ?? 0) ? b : a));
}

/** Alternating rounds over every endpoint; the best round of each (other work only ever lowers one). */
async function rounds(ctx: ScenarioContext): Promise<Partial<Record<EndpointName, { best: Record<string, number>; rounds: Array<Record<string, number>> }>>> {
  const all = new Map<EndpointName, Array<Record<string, number>>>();
  for (let round = 0; round < ctx.plan.throughputRounds; round++) {
    for (const endpoint of chatEndpoints(ctx)) {
      const list = all.get(endpoint.name) ?? [];
      list.push(await maxThroughput(ctx, endpoint));
      all.set(endpoint.name, list);
    }
  }
  return Object.fromEntries([...all].map(([name, list]) => [name, { best: best(list) ?? {}, rounds: list }]));
}

/** Farebox answers that were not 2xx make its throughput figure meaningless. */
function failedCalls(figures: Record<string, number> | undefined): Partial<Measurement> {
  const failed = (figures?.non2xx ?? 0) + (figures?.errors ?? 0);
  return failed > 0 ? { valid: false, note: `${failed} Farebox calls were not answered 2xx` } : {};
}

/** Max throughput on one core, floor vs Farebox vs Portkey (DESIGN §9: ≥ 60 % of the bare proxy). */
export async function throughputScenario(ctx: ScenarioContext): Promise<ScenarioOutput> {
  const { value: result, steal } = await measured(ctx, 'max throughput', () => rounds(ctx));
  const figure = (name: EndpointName, key: string): number | null => result[name]?.best[key] ?? null;
  const absent = portkeyAbsence(ctx);
  const row = (id: string, scenario: string, unit: string, key: string, extra: Partial<Measurement> = {}): Measurement => ({
    id,
    scenario,
    unit,
    floor: figure('floor', key),
    farebox: figure('farebox', key),
    portkey: figure('portkey', key),
    ...(absent ? { portkeyNote: absent } : {}),
    steal,
    ...extra,
  });
  const rows: Measurement[] = [
    row('chat-throughput', 'chat max throughput (1 core)', 'req/s', 'requestsPerSecond', { target: TARGETS.throughput, ...failedCalls(result.farebox?.best) }),
    row('chat-throughput-p50', 'chat p50 at max throughput', 'ms', 'latencyP50Ms'),
    row('chat-throughput-p99', 'chat p99 at max throughput', 'ms', 'latencyP99Ms'),
  ];
  return { rows, details: { connections: ctx.plan.throughputConnections, ...result } };
}
