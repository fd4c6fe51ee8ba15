import { MongoClient } from 'mongodb';
import { dropBenchData } from './bench-cleanup.js';
import { waitHttpReady } from './bench-processes.js';
import { seedBench } from './bench-seed.js';
import { NO_EQUIVALENT } from './bench-targets.js';
import { keptAttempt, shouldRepeat } from './cpu-steal.js';
import { chatBody, chatHeaders } from './chat-requests.js';
import { round3, sleep, summarize } from './latency-stats.js';
import { pacedLoad, pacedPool, type PacedLoadResult } from './paced-load.js';
import type { Measurement } from './report-rows.js';
import type { ScenarioContext, ScenarioOutput } from './scenario-context.js';
import { runAutocannon } from './scenario-throughput.js';
import { startSideWeb } from './side-web.js';

/** Seconds of closed-loop load that measure the web's capacity, and of each paced run. */
const CAPACITY_S = 6;
const PACED_S = 8;
/** Connections of the paced runs: enough that the client never queues what the web should. */
const CONNECTIONS = 1_024;
/**
 * Connections of the closed loop that finds the capacity: enough to keep the web's core busy,
 * few enough that it is not shedding (more only adds queueing, and shed answers do not count).
 */
const CAPACITY_CONNECTIONS = 64;
/** Enough for requests a closed loop left in flight to be answered and charged. */
const SETTLE_MS = 1_000;
/**
 * Latencies are timed from each request's due time, so the load client's own lateness counts in
 * them: a client later than the shed target at p99 cannot show it, and the loads are measured
 * again, as a row with too much CPU steal is (see cpu-steal).
 */
const CLIENT_LATE_LIMIT_MS = 10;

/** One paced run at `factor` × capacity, in figures. */
function figures(run: PacedLoadResult): Record<string, number> {
  const ok = summarize(run.latencies);
  const shed = summarize(run.refusals);
  // How late the load client itself sent: a client that cannot keep its pace adds its own delay to every latency it measures.
  const lag = summarize(run.sendLag);
  return { sent: run.sent, answered: ok.count, p50: ok.p50, p99: ok.p99, shed: shed.count, shedP50: shed.p50, shedP99: shed.p99, lost: run.errors, sendLagP50: lag.p50, sendLagP99: lag.p99 };
}

/** Samples the web's in-flight count and event-loop delay (max since the previous sample) every half second until stopped. */
function watchWeb(url: string, token: string): { stop(): Array<{ inFlight: number; delayMaxMs: number }> } {
  const samples: Array<{ inFlight: number; delayMaxMs: number }> = [];
  const figure = (page: string, series: string) => Number(page.split('\n').find((l) => l.startsWith(`${series} `))?.split(' ')[1] ?? NaN);
  const timer = setInterval(() => {
    void fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } })
      .then((r) => r.text())
      .then((page) => samples.push({ inFlight: figure(page, 'farebox_requests_in_flight'), delayMaxMs: Math.round(figure(page, 'farebox_event_loop_delay_seconds{stat="max"}') * 1000) }))
      .catch(() => undefined);
  }, 500);
  return {
    stop: () => {
      clearInterval(timer);
      return samples;
    },
  };
}

/** Steps of the ramp that finds the capacity, as multiples of the closed loop's rate. */
const RAMP = [1, 1.5, 2, 2.5, 3];
const RAMP_S = 3;

/**
 * The web's capacity: the highest rate of the ramp it answers in full, in time (every request
 * answered 2xx, p99 under a second). A closed loop alone understates it: its few connections
 * wait on each answer's round trip (a group commit), not on the web's core.
 */
async function findCapacity(closedRate: number, load: (rate: number, seconds: number) => Promise<PacedLoadResult>): Promise<{ capacity: number; answered: number; lost: number }> {
  let capacity = closedRate;
  let answered = 0;
  let lost = 0;
  for (const step of RAMP) {
    const run = await load(closedRate * step, RAMP_S);
    answered += run.latencies.length;
    lost += run.errors;
    if (run.non2xx + run.errors > 0 || summarize(run.latencies).p99 > 1_000) break;
    capacity = closedRate * step;
  }
  return { capacity, answered, lost };
}

/** The capacity from the ramp, then paced runs at 0.8× and 2× it, the web watched during the second. */
async function measureAtLoads(closedRate: number, load: (rate: number, seconds: number) => Promise<PacedLoadResult>, watch: () => ReturnType<typeof watchWeb>) {
  const ramp = await findCapacity(closedRate, load);
  const capacity = Math.round(ramp.capacity);
  const light = figures(await load(capacity * 0.8, PACED_S));
  const watching = watch();
  const heavy = figures(await load(capacity * 2, PACED_S));
  return { ramp, capacity, light, heavy, seen: watching.stop() };
}

type Attempt = Awaited<ReturnType<typeof measureAtLoads>>;

/** How late the load client sent at p99 during an attempt's 2× run, ms. */
function clientLate(attempt: Attempt): number {
  return attempt.heavy.sendLagP99 ?? Number.POSITIVE_INFINITY;
}

/** Runs `measure` again while the load client was later than CLIENT_LATE_LIMIT_MS (see there); every attempt, and the least late. */
async function measureWhileClientLate(measure: () => Promise<Attempt>, log: (message: string) => void): Promise<{ kept: Attempt; attempts: Attempt[] }> {
  const attempts: Attempt[] = [];
  const late: number[] = [];
  do {
    const attempt = await measure();
    attempts.push(attempt);
    late.push(clientLate(attempt));
    log(`overload: at 2×, in flight and loop delay every 0.5 s: ${attempt.seen.map((x) => `${x.inFlight}/${x.delayMaxMs}ms`).join(' ')}; load client ${clientLate(attempt)} ms late at p99`);
  } while (shouldRepeat(late, CLIENT_LATE_LIMIT_MS));
  return { kept: attempts[keptAttempt(late)] as Attempt, attempts };
}

/** The account's charges in the side web's ledger. */
async function chargesOf(mongoUri: string, db: string, accountId: string): Promise<number> {
  const client = await MongoClient.connect(mongoUri);
  try {
    return await client.db(db).collection('ledger').countDocuments({ account_id: accountId, kind: 'charge' });
  } finally {
    await client.close();
  }
}

/**
 * Overload (DESIGN §9): a web of its own (shipped settings, one core, 1 ms upstream) is driven
 * closed-loop, then on a paced ramp to find its capacity, then paced at 0.8× and 2× that. Reported: the answered
 * requests' p99 at 2× against 2× their p99 at 0.8× (the target), how fast the rest were shed
 * (503 `overloaded`), how many got no answer at all, and whether every answered chat was
 * charged once (the ledger's charges against the 2xx answers).
 */
export async function overloadScenario(ctx: ScenarioContext): Promise<ScenarioOutput> {
  const { stack } = ctx;
  // Shipped shedding settings: the stack's webs run with shedding off.
  const side = await startSideWeb(ctx, 'shed', { SHED_EVENT_LOOP_DELAY_MS: undefined, SHED_EVENT_LOOP_BUSY_PERCENT: undefined });
  try {
    await waitHttpReady(`${side.url}/readyz`, side.proc, 90_000);
    const account = await seedBench(side.url, stack.adminToken, `${stack.runId}-shed`);
    const headers = chatHeaders(account.key);
    const body = chatBody({ stream: false });
    const request = { url: `${side.url}/v1/chat/completions`, method: 'POST' as const, headers, body, connections: CAPACITY_CONNECTIONS };
    const warm = await runAutocannon({ ...request, duration: 2 });
    const closed = await runAutocannon({ ...request, duration: CAPACITY_S });
    // The closed loop stops with requests in flight that it never counts; they are charged all the
    // same. Let them settle and count the paced runs' charges alone, whose every request is waited for.
    await sleep(SETTLE_MS);
    const chargedBefore = await chargesOf(stack.mongoUri, side.env.MONGODB_DB ?? '', account.accountId);
    // One pool for the ramp and both paced runs, as a client fleet keeps its connections: a fresh
    // pool per run would open up to CONNECTIONS at once each time, a burst real traffic rarely makes.
    const pool = pacedPool(side.url, CONNECTIONS);
    const load = (rate: number, seconds: number) => pacedLoad({ origin: side.url, path: '/v1/chat/completions', headers, body, rate: Math.round(rate), seconds, connections: CONNECTIONS, pool });
    const { kept, attempts } = await measureWhileClientLate(() => measureAtLoads(closed['2xx'] / CAPACITY_S, load, () => watchWeb(side.url, stack.adminToken)), ctx.log).finally(() => pool.destroy());
    const { ramp, capacity, light, heavy } = kept;
    const answered = attempts.reduce((sum, a) => sum + a.ramp.answered + a.light.answered! + a.heavy.answered!, 0);
    // Nothing may be lost in any attempt, kept or not.
    const lost = attempts.reduce((sum, a) => sum + a.light.lost! + a.heavy.lost!, 0);
    const repeated = attempts.length > 1 ? `; measured ${attempts.length} times, the load client late by ${attempts.map(clientLate).join(', ')} ms at p99 at 2×, the least late kept` : '';
    const charged = (await chargesOf(stack.mongoUri, side.env.MONGODB_DB ?? '', account.accountId)) - chargedBefore;
    ctx.log(`overload: capacity ${capacity} req/s; 0.8× ${JSON.stringify(light)}; 2× ${JSON.stringify(heavy)}; ${answered} answered 2xx in the paced runs (${ramp.lost} of the ramp without an answer), ${charged} charges${repeated}`);
    const target = round3(2 * light.p99!);
    const row: Measurement = {
      id: 'overload-2x-p99',
      scenario: `answered chats' p99 at 2× capacity (${capacity} req/s, the highest paced rate held; 1 ms upstream), shedding on`,
      unit: 'ms',
      floor: null,
      farebox: heavy.p99!,
      portkey: null,
      portkeyNote: NO_EQUIVALENT,
      note: `target ≤ 2× the p99 at 0.8× load (${light.p99} ms → ${target} ms); at 2×: ${heavy.answered} of ${heavy.sent} answered (p50 ${heavy.p50} ms), ${heavy.shed} shed 503 overloaded (p50 ${heavy.shedP50} ms, p99 ${heavy.shedP99} ms, target < 10 ms); at 0.8×: ${light.shed} shed; ${lost} without an answer at 0.8× and 2×; the load client sent p50 ${heavy.sendLagP50} ms, p99 ${heavy.sendLagP99} ms late; ledger charges ${charged} for the paced runs' ${answered} answered chats${repeated}`,
      ...(lost > 0 ? { valid: false } : {}),
      steal: null,
    };
    return { rows: [row], details: { capacity, light, heavy, answered, charged } };
  } finally {
    await stack.group.stop(side.proc.name);
    await dropBenchData(stack.services, side.env.MONGODB_DB ?? '', side.env.REDIS_PREFIX ?? '').catch(() => undefined);
  }
}
