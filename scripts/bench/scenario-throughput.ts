import autocannon, { type Options, type Result } from 'autocannon';
import { addedRow, ratioRow, type ResultRow } from './bench-report.js';
import { chatBody, chatHeaders } from './chat-requests.js';
import { round3, summarize } from './latency-stats.js';
import { pacedLoad } from './paced-load.js';
import { withCpu, type ScenarioContext, type ScenarioOutput } from './scenario-context.js';
import { perRequest, readStoreCounters } from './store-counters.js';

type Target = 'floor' | 'farebox';

function run(options: Options): Promise<Result> {
  return new Promise((resolve, reject) => {
    autocannon({ timeout: 10, ...options }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

function baseUrl(ctx: ScenarioContext, target: Target): string {
  return target === 'floor' ? ctx.stack.floorUrl : ctx.stack.webUrl;
}

function request(ctx: ScenarioContext, target: Target): Options {
  return {
    url: `${baseUrl(ctx, target)}/v1/chat/completions`,
    method: 'POST',
    headers: chatHeaders(ctx.stack.account.key),
    body: chatBody({ stream: false }),
  };
}

function brief(result: Result): Record<string, number> {
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
async function maxThroughput(ctx: ScenarioContext, target: Target): Promise<Record<string, number>> {
  const { throughputSeconds: seconds, throughputConnections: connections } = ctx.plan;
  const options = { ...request(ctx, target), connections };
  await run({ ...options, duration: Math.max(2, Math.ceil(seconds / 3)) });
  const counters = () => readStoreCounters(ctx.stack.mongoUri, ctx.stack.redisUrl);
  const before = await counters();
  const result = await withCpu(ctx, `${target} max throughput`, () => run({ ...options, duration: seconds }));
  const storeOpsPerRequest = perRequest(before, await counters(), result['2xx']);
  ctx.log(`${target} max throughput: ${result.requests.average} req/s, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}, errors ${result.errors}; store ops/request ${JSON.stringify(storeOpsPerRequest)}`);
  return { ...brief(result), ...storeOpsPerRequest };
}

function best(rounds: Array<Record<string, number>>): Record<string, number> {
  return rounds.reduce((a, b) => ((b.requestsPerSecond ?? 0) > (a.requestsPerSecond ?? 0) ? b : a));
}

/**
 * Max throughput in alternating floor/Farebox rounds, the best round of each reported (other
 * work on the machine only ever lowers a round). DESIGN §9: ≥ 50 % of the bare proxy on one core.
 */
export async function throughputScenario(ctx: ScenarioContext): Promise<ScenarioOutput> {
  const floorRounds: Array<Record<string, number>> = [];
  const fareboxRounds: Array<Record<string, number>> = [];
  for (let round = 0; round < ctx.plan.throughputRounds; round++) {
    floorRounds.push(await maxThroughput(ctx, 'floor'));
    fareboxRounds.push(await maxThroughput(ctx, 'farebox'));
  }
  const floor = best(floorRounds);
  const farebox = best(fareboxRounds);
  const rows: ResultRow[] = [
    ratioRow('chat max throughput (1 core)', 'req/s', floor.requestsPerSecond ?? 0, farebox.requestsPerSecond ?? 0, 0.5, '≥ 50% of floor'),
    addedRow('chat p50 at max throughput', 'ms', floor.latencyP50Ms ?? 0, farebox.latencyP50Ms ?? 0, null, '—'),
    addedRow('chat p99 at max throughput', 'ms', floor.latencyP99Ms ?? 0, farebox.latencyP99Ms ?? 0, null, '—'),
  ];
  return { rows, details: { connections: ctx.plan.throughputConnections, floor, farebox, floorRounds, fareboxRounds } };
}

async function atRate(ctx: ScenarioContext, target: Target, rate: number): Promise<Record<string, unknown>> {
  const seconds = ctx.plan.rateSeconds;
  const autocannonResult = await withCpu(ctx, `${target} ${rate} req/s (autocannon)`, () =>
    run({ ...request(ctx, target), connections: 50, overallRate: rate, duration: seconds }),
  );
  const paced = await withCpu(ctx, `${target} ${rate} req/s (paced)`, () =>
    pacedLoad({ origin: baseUrl(ctx, target), path: '/v1/chat/completions', headers: chatHeaders(ctx.stack.account.key), body: chatBody({ stream: false }), rate, seconds, connections: 64 }),
  );
  const latency = summarize(paced.latencies);
  ctx.log(`${target} at ${rate} req/s: autocannon p99 ${autocannonResult.latency.p99} ms; paced p50 ${latency.p50} p99 ${latency.p99} ms (${paced.achievedRate} req/s, non-2xx ${paced.non2xx}, errors ${paced.errors})`);
  return { autocannon: brief(autocannonResult), paced: { latency, achievedRate: paced.achievedRate, sent: paced.sent, non2xx: paced.non2xx, errors: paced.errors } };
}

function p99Of(result: Record<string, unknown>, tool: 'autocannon' | 'paced'): number {
  const part = result[tool] as { latencyP99Ms?: number; latency?: { p99: number } };
  return part.latencyP99Ms ?? part.latency?.p99 ?? Number.NaN;
}

/** Fixed rates: p99 latency Farebox adds over the floor (DESIGN §9: ≤ 3 ms at 1,000 req/s). */
export async function ratesScenario(ctx: ScenarioContext): Promise<ScenarioOutput> {
  const rows: ResultRow[] = [];
  const details: Record<string, unknown> = {};
  for (const rate of ctx.plan.rates) {
    const floor = await atRate(ctx, 'floor', rate);
    const farebox = await atRate(ctx, 'farebox', rate);
    details[String(rate)] = { floor, farebox };
    const limit = rate >= 1_000 ? 3 : null;
    const target = limit === null ? '—' : '≤ +3 ms';
    rows.push(addedRow(`chat p99 at ${rate} req/s (autocannon)`, 'ms', p99Of(floor, 'autocannon'), p99Of(farebox, 'autocannon'), limit, target));
    rows.push(addedRow(`chat p99 at ${rate} req/s (paced)`, 'ms', p99Of(floor, 'paced'), p99Of(farebox, 'paced'), limit, target));
  }
  return { rows, details };
}
