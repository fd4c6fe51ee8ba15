import { collections } from '../../src/store/index.js';
import { connectMongo } from '../../src/platform/db/index.js';
import { LedgerWriter } from '../../src/ledger/index.js';
import { createLogger } from '../../src/platform/log/index.js';
import { NO_EQUIVALENT, TARGET_RATE, TARGETS } from './bench-targets.js';
import type { StealRecord } from './cpu-steal.js';
import { chatBody, chatHeaders } from './chat-requests.js';
import { summarize, type LatencySummary } from './latency-stats.js';
import { pacedLoad } from './paced-load.js';
import { loneCommits } from './lone-commits.js';
import { startLocalAckWeb } from './local-ack-web.js';
import type { Measurement, Target } from './report-rows.js';
import { chatEndpoints, measured, portkeyAbsence, type Endpoint, type EndpointName, type ScenarioContext, type ScenarioOutput } from './scenario-context.js';
import { isFarebox, pacedRun, SPREAD_ACCOUNTS, spreadAccounts, type PacedRun, type TailEndpoint, type TailRelay } from './scenario-tail.js';
import { sustained } from './scenario-rates.js';

/** Rates the sustainable-rate walk may visit, req/s. */
const WALK_RATES = [100, 200, 300, 400, 500, 600, 800, 1_000, 1_200];
/** Most rates one relay's walk visits besides the target rate. */
const WALK_STEPS = 4;
/** Rate and length of the warm-up load before the first paced row. */
const WARM_UP_RATE = 600;
const WARM_UP_SECONDS = 8;

type Runs = Partial<Record<TailRelay, PacedRun>>;

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
async function allAt(ctx: ScenarioContext, endpoints: readonly TailEndpoint[], rate: number, keys?: readonly string[], label?: string): Promise<Runs> {
  const runs: Runs = {};
  for (const endpoint of endpoints) runs[endpoint.name] = await pacedRun(ctx, endpoint, rate, keys && (endpoint.spreadKeys ?? keys), label);
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

function pick(runs: Runs, name: TailRelay, figure: 'p50' | 'p99'): number | null {
  return runs[name]?.latency[figure] ?? null;
}

/** The two ledger modes the paced rows run Farebox in, and what each is judged against. */
const MODES: ReadonlyArray<{ relay: 'farebox' | 'farebox-local' | 'farebox-leased'; id: string; label: string; p50?: Target; p99: Target }> = [
  { relay: 'farebox', id: '', label: 'LEDGER_ACK=commit, ADMISSION=leased', p99: TARGETS.p99PacedTail },
  { relay: 'farebox-local', id: '-local', label: 'LEDGER_ACK=local, ADMISSION=exact', p50: TARGETS.pacedLocalAheadOfPeer, p99: TARGETS.pacedLocalAheadOfPeer },
  { relay: 'farebox-leased', id: '-leased', label: 'LEDGER_ACK=local, ADMISSION=leased', p50: TARGETS.pacedLeasedP50, p99: TARGETS.pacedLocalAheadOfPeer },
];

/** p50 and p99 of Farebox in each ledger mode beside the floor and Portkey of the same load. */
function latencyRows(runs: Runs, id: string, label: string, peerNote: string | undefined): Measurement[] {
  return MODES.filter((mode) => runs[mode.relay]).flatMap((mode) => {
    const base = { unit: 'ms', steal: null, ...(peerNote ? { portkeyNote: peerNote } : {}) };
    const run = runs[mode.relay];
    const behind = run && !sustained(run) ? { valid: false, note: `Farebox (${mode.label}) did not keep up ${label}: ${run.achievedRate} req/s answered` } : {};
    const row = (figure: 'p50' | 'p99', target: Target | undefined): Measurement => ({
      id: `${id}${mode.id}-${figure}`,
      scenario: `chat ${figure} at ${TARGET_RATE} req/s (paced, ${label}, ${mode.label})`,
      floor: pick(runs, 'floor', figure),
      farebox: pick(runs, mode.relay, figure),
      portkey: pick(runs, 'portkey', figure),
      ...(target ? { target, ...behind } : {}),
      ...base,
    });
    return [row('p50', mode.p50), row('p99', mode.p99)];
  });
}

/**
 * Every relay under a few seconds of load, from one key and from the spread keys, before any
 * paced row: V8 compiles what is hot over the first thousands of requests, and a relay with
 * more code would otherwise pay for its compilation inside the first rows measured.
 */
async function warmUp(ctx: ScenarioContext, endpoints: readonly TailEndpoint[], keys: readonly string[]): Promise<void> {
  for (const endpoint of endpoints) {
    const headers = isFarebox(endpoint) ? [endpoint.headers, ...(endpoint.spreadKeys ?? keys).map(chatHeaders)] : endpoint.headers;
    await pacedLoad({ origin: endpoint.url, path: '/v1/chat/completions', headers, body: chatBody({ stream: false }), rate: WARM_UP_RATE, seconds: WARM_UP_SECONDS, connections: 64 });
  }
}

/** The chat endpoints with the side webs after the stack's own, so each load shape measures every mode back to back. */
function withSideWebs(endpoints: readonly Endpoint[], sides: readonly TailEndpoint[]): TailEndpoint[] {
  return endpoints.flatMap((endpoint): TailEndpoint[] => (endpoint.name === 'farebox' ? [endpoint, ...sides] : [endpoint]));
}

/**
 * Open-loop tail on one account and spread over 50, with Farebox in both ledger modes (the
 * stack's web acknowledges a charge once committed, a second web with `LEDGER_ACK=local` once
 * spooled), and the sustainable paced rate of each relay (commit mode) (DESIGN §9). Every
 * Farebox paced run also records what its web process did (CPU per request, ledger batches,
 * commit times, event-loop delay) and every run how late the generator itself sent.
 */
export async function tailScenario(ctx: ScenarioContext): Promise<ScenarioOutput> {
  const endpoints = chatEndpoints(ctx);
  const accounts = await spreadAccounts(ctx);
  const localWeb = await startLocalAckWeb(ctx, 'local');
  const leasedWeb = await startLocalAckWeb(ctx, 'leased').catch(async (err: unknown) => {
    await localWeb.stop();
    throw err;
  });
  let one: Runs;
  let spread: Runs;
  let lone: LatencySummary;
  let steal: StealRecord;
  try {
    const both = withSideWebs(endpoints, [localWeb.endpoint, leasedWeb.endpoint]);
    await warmUp(ctx, both, accounts.map((a) => a.key));
    ({ value: lone, steal } = await measured(ctx, 'lone commit (tail)', () => loneCommitP99(ctx)));
    ctx.log(`tail: lone commit p50 ${lone.p50} p99 ${lone.p99} ms`);
    one = await allAt(ctx, both, TARGET_RATE);
    spread = await allAt(ctx, both, TARGET_RATE, accounts.map((a) => a.key), `, ${SPREAD_ACCOUNTS} accounts`);
  } finally {
    await Promise.all([localWeb.stop(), leasedWeb.stop()]);
  }
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
