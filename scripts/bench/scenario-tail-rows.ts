import { collections } from '../../src/platform/store/index.js';
import { connectMongo } from '../../src/platform/db/index.js';
import { LedgerWriter } from '../../src/ledger/index.js';
import { createLogger } from '../../src/platform/log/index.js';
import { NO_EQUIVALENT, TARGET_RATE, TARGETS } from './bench-targets.js';
import { chatBody, chatHeaders } from './chat-requests.js';
import { summarize, type LatencySummary } from './latency-stats.js';
import { pacedLoad } from './paced-load.js';
import { loneCommits } from './lone-commits.js';
import type { Measurement } from './report-rows.js';
import { chatEndpoints, measured, portkeyAbsence, type Endpoint, type EndpointName, type ScenarioContext, type ScenarioOutput } from './scenario-context.js';
import { pacedRun, SPREAD_ACCOUNTS, spreadAccounts, type PacedRun } from './scenario-tail.js';
import { sustained } from './scenario-rates.js';

/** Rates the sustainable-rate walk may visit, req/s. */
const WALK_RATES = [100, 200, 300, 400, 500, 600, 800, 1_000, 1_200];
/** Most rates one relay's walk visits besides the target rate. */
const WALK_STEPS = 4;
/** Rate and length of the warm-up load before the first paced row. */
const WARM_UP_RATE = 600;
const WARM_UP_SECONDS = 8;

type Runs = Partial<Record<EndpointName, PacedRun>>;

/** The lone commit p99 of this run, measured beside the paced rows (ms). */
async function loneCommitP99(ctx: ScenarioContext): Promise<LatencySummary> {
  const mongo = await connectMongo(ctx.stack.mongoUri, ctx.stack.dbName);
  try {
    const writer = new LedgerWriter(mongo.client, collections(mongo.db), createLogger('silent'));
    await loneCommits(writer, ctx.stack.account, `bench-tail-${ctx.stack.runId}-warm-`, 20);
    return summarize(await loneCommits(writer, ctx.stack.account, `bench-tail-${ctx.stack.runId}-`, ctx.plan.loneCommits));
  } finally {
    await mongo.close();
  }
}

/** Every relay at `rate`, from one account (or from the given keys, for Farebox). */
async function allAt(ctx: ScenarioContext, endpoints: readonly Endpoint[], rate: number, keys?: readonly string[], label?: string): Promise<Runs> {
  const runs: Runs = {};
  for (const endpoint of endpoints) runs[endpoint.name] = await pacedRun(ctx, endpoint, rate, keys, label);
  return runs;
}

/** Within the floor's p99 at the same rate + 2 ms + the lone commit p99, and kept up. */
function within(run: PacedRun | undefined, floor: PacedRun | undefined, loneP99: number): boolean {
  if (!run || !floor || !sustained(run)) return false;
  return run.latency.p99 <= floor.latency.p99 + 2 + loneP99;
}

/**
 * The highest rate each relay sustains within the floor's p99 + 2 ms + the lone commit p99:
 * from the target rate, each relay walks up while it stays within (or down until it is), and
 * the floor is measured at every rate visited.
 */
async function sustainableRates(ctx: ScenarioContext, endpoints: readonly Endpoint[], atTarget: Runs, loneP99: number): Promise<{ rates: Partial<Record<EndpointName, number | null>>; visited: Record<number, Runs> }> {
  const visited: Record<number, Runs> = { [TARGET_RATE]: atTarget };
  const measure = async (endpoint: Endpoint, rate: number): Promise<PacedRun | undefined> => {
    const runs = (visited[rate] ??= {});
    runs.floor ??= await pacedRun(ctx, endpoints[0] as Endpoint, rate);
    runs[endpoint.name] ??= await pacedRun(ctx, endpoint, rate);
    return runs[endpoint.name];
  };
  const rates: Partial<Record<EndpointName, number | null>> = {};
  for (const endpoint of endpoints) {
    const start = WALK_RATES.indexOf(TARGET_RATE);
    const up = within(atTarget[endpoint.name], atTarget.floor, loneP99);
    let best: number | null = up ? TARGET_RATE : null;
    for (let step = 1; step <= WALK_STEPS; step++) {
      const rate = WALK_RATES[start + (up ? step : -step)];
      if (rate === undefined) break;
      const ok = within(await measure(endpoint, rate), visited[rate]?.floor, loneP99);
      if (up && !ok) break;
      if (ok) best = up ? rate : (best ?? rate);
      if (!up && ok) break;
    }
    rates[endpoint.name] = best;
  }
  return { rates, visited };
}

function pick(runs: Runs, name: EndpointName, figure: 'p50' | 'p99'): number | null {
  return runs[name]?.latency[figure] ?? null;
}

function latencyRows(runs: Runs, id: string, label: string, peerNote: string | undefined): Measurement[] {
  const base = { unit: 'ms', steal: null, ...(peerNote ? { portkeyNote: peerNote } : {}) };
  const behind = runs.farebox && !sustained(runs.farebox) ? { valid: false, note: `Farebox did not keep up ${label}: ${runs.farebox.achievedRate} req/s answered` } : {};
  return [
    { id: `${id}-p50`, scenario: `chat p50 at ${TARGET_RATE} req/s (paced, ${label})`, floor: pick(runs, 'floor', 'p50'), farebox: pick(runs, 'farebox', 'p50'), portkey: pick(runs, 'portkey', 'p50'), ...base },
    { id: `${id}-p99`, scenario: `chat p99 at ${TARGET_RATE} req/s (paced, ${label})`, floor: pick(runs, 'floor', 'p99'), farebox: pick(runs, 'farebox', 'p99'), portkey: pick(runs, 'portkey', 'p99'), target: TARGETS.p99PacedTail, ...base, ...behind },
  ];
}

/**
 * Every relay under a few seconds of load, from one key and from the spread keys, before any
 * paced row: V8 compiles what is hot over the first thousands of requests, and a relay with
 * more code would otherwise pay for its compilation inside the first rows measured.
 */
async function warmUp(ctx: ScenarioContext, endpoints: readonly Endpoint[], keys: readonly string[]): Promise<void> {
  for (const endpoint of endpoints) {
    const headers = endpoint.name === 'farebox' ? [ctx.stack.account.key, ...keys].map(chatHeaders) : endpoint.headers;
    await pacedLoad({ origin: endpoint.url, path: '/v1/chat/completions', headers, body: chatBody({ stream: false }), rate: WARM_UP_RATE, seconds: WARM_UP_SECONDS, connections: 64 });
  }
}

/**
 * Open-loop tail on one account and spread over 50 and the sustainable paced rate of each relay
 * (DESIGN §9). Every Farebox paced run also records what its web
 * process did (CPU per request, ledger batches, commit times, event-loop delay) and every run
 * how late the generator itself sent.
 */
export async function tailScenario(ctx: ScenarioContext): Promise<ScenarioOutput> {
  const endpoints = chatEndpoints(ctx);
  const accounts = await spreadAccounts(ctx);
  await warmUp(ctx, endpoints, accounts.map((a) => a.key));
  const { value: lone, steal } = await measured(ctx, 'lone commit (tail)', () => loneCommitP99(ctx));
  ctx.log(`tail: lone commit p50 ${lone.p50} p99 ${lone.p99} ms`);
  const one = await allAt(ctx, endpoints, TARGET_RATE);
  const spread = await allAt(ctx, endpoints, TARGET_RATE, accounts.map((a) => a.key), `, ${SPREAD_ACCOUNTS} accounts`);
  const walk = await sustainableRates(ctx, endpoints, one, lone.p99);
  const peerNote = portkeyAbsence(ctx);
  const rows: Measurement[] = [
    { id: 'tail-lone-p99', scenario: 'ledger lone charge commit p99 (tail run)', unit: 'ms', floor: null, farebox: lone.p99, portkey: null, portkeyNote: NO_EQUIVALENT, steal },
    ...latencyRows(one, 'chat-paced-one-account', 'one account', peerNote),
    ...latencyRows(spread, 'chat-paced-50-accounts', `${SPREAD_ACCOUNTS} accounts`, peerNote),
    {
      id: 'chat-sustainable-rate',
      scenario: 'highest paced rate within floor p99 + 2 ms + lone commit p99',
      unit: 'req/s',
      floor: walk.rates.floor ?? null,
      farebox: walk.rates.farebox ?? null,
      portkey: walk.rates.portkey ?? null,
      ...(peerNote ? { portkeyNote: peerNote } : {}),
      note: `rates tried: ${WALK_RATES.filter((r) => walk.visited[r]).join(', ')} req/s; a relay's figure is null when it stayed outside even at the lowest rate its walk reached`,
      steal: null,
    },
  ];
  return { rows, details: { loneCommit: lone, oneAccount: one, spreadAccounts: spread, walk } };
}
