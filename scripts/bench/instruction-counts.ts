import path from 'node:path';
import { findFreePort } from '../services/free-port.js';
import { waitHttpReady, type BenchProcess } from './bench-processes.js';
import { fundedAccount } from './bench-seed.js';
import { GATEWAY_CORE, LOAD_CORE } from './bench-stack.js';
import { dumpCounters, dumpTotals, zeroCounters, type DumpTotals } from './callgrind-dumps.js';
import { chatBody, chatHeaders } from './chat-requests.js';
import { sleep, timedPool } from './latency-stats.js';
import type { ScenarioContext } from './scenario-context.js';

/**
 * Requests sent before counting starts, so caches and pools are warm and the JIT has compiled
 * what is hot: with a few hundred, the counted calls still paid for optimizing compilation and
 * the figure moved by tens of percent between runs.
 */
export const WARM_UP_REQUESTS = 2_500;
/** Requests whose instructions are counted. */
export const COUNTED_REQUESTS = 1_000;
/** Requests in flight at once, warming up and counted: a steady load, not one client idling. */
export const IN_FLIGHT = 4;
/** Runs per relay; the median is reported, the spread beside it. */
export const RUNS = 3;
/** Seconds after the warm-up before the idle window, so batches and writes it left behind finish outside it. */
const SETTLE_SECONDS = 5;
/**
 * Quiet windows after the warm-up, and the seconds of each. The lowest rate of the three is
 * what is subtracted from the counted calls: a one-off in one window (a late compile on V8's
 * helper threads, a major GC) once made a single 30 s window's rate eight times the others',
 * and subtracting it pushed the figure of that run down by as much.
 */
const IDLE_WINDOWS = 3;
const IDLE_SECONDS = 10;

/**
 * Runs `task`s one at a time, in the order they were handed in. The copies boot one after
 * another: `web` gives Redis 10 s of wall time to answer at boot, and six copies starting at
 * once under valgrind on a busy machine did not get through that.
 */
function oneAtATime(): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}

/** One valgrind run of one relay. */
export interface CallgrindRun {
  /** Instructions per second of each quiet window (no requests), and over the counted calls. */
  idleRates: DumpTotals[];
  counted: DumpTotals;
  countedSeconds: number;
  /** Per counted request, the lowest idle rate × the counted window subtracted: all threads, event-loop thread. */
  perRequest: number;
  mainThreadPerRequest: number;
  /**
   * Counted calls refused with 503 and sent again (see sendChats). Their refusals, and the
   * spool drain behind them, are counted too, so a run with any is an upper bound.
   */
  refused: number;
}

/** Instructions one relay executed per request of the fixed mix, in steady state. */
export interface InstructionCount {
  relay: 'floor' | 'farebox';
  requests: number;
  runs: CallgrindRun[];
  /** Medians of the runs. */
  perRequest: number;
  /** Of `perRequest`, what the event-loop thread executed; the rest is V8's and libuv's helper threads (compilation, GC). */
  mainThreadPerRequest: number;
}

/** Tries of one call under valgrind before the run gives up. */
const CALLGRIND_TRIES = 30;

/**
 * Sends `count` non-streamed chat calls, `IN_FLIGHT` at a time, and returns how many answers
 * were a 503 sent again; throws on any other non-200, and on a 503 once `tries` ran out.
 * Under valgrind a web's wall-clock waits (a commit's 5 s before it spools, a spool lock's
 * refresh) can run out, and it answers 503 for a moment; such a call is sent again after a second.
 */
export async function sendChats(url: string, key: string, count: number, tries = 1): Promise<number> {
  let refused = 0;
  await timedPool(count, IN_FLIGHT, async () => {
    for (let attempt = 1; ; attempt++) {
      const res = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: chatHeaders(key), body: chatBody({ stream: false }), signal: AbortSignal.timeout(300_000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
      if (res.status !== 503 || attempt >= tries) throw new Error(`a chat call answered ${res.status}`);
      refused++;
      await sleep(1_000);
    }
  });
  return refused;
}

/** The median of an odd number of figures (the lower middle one of an even number). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
}

/** Counted instructions less what the process does anyway over as long a quiet time, per request. */
function steady(counted: number, idlePerSecond: number, countedSeconds: number): number {
  return Math.round((counted - idlePerSecond * countedSeconds) / COUNTED_REQUESTS);
}

/** Sleeps through the quiet windows, dumping the counters after each; returns their lengths (s). */
async function quietWindows(pid: number): Promise<number[]> {
  const seconds: number[] = [];
  for (let i = 0; i < IDLE_WINDOWS; i++) {
    const from = performance.now();
    await sleep(IDLE_SECONDS * 1000);
    seconds.push((performance.now() - from) / 1000);
    dumpCounters(pid);
  }
  return seconds;
}

/**
 * One valgrind run of a fresh relay process: warm-up, a quiet window (counters zeroed, then
 * dumped after `IDLE_SECONDS` with no requests), then `COUNTED_REQUESTS` calls (dumped again).
 * Timers, lease refreshes and pollers run per second of wall time, and under valgrind a request
 * takes a hundred times longer than natively, so their instructions would otherwise be charged
 * to the requests; the quiet window measures them in the same process and they are subtracted.
 */
async function countRun(ctx: ScenarioContext, relay: 'floor' | 'farebox', index: number, boot: ReturnType<typeof oneAtATime>): Promise<CallgrindRun> {
  const { stack } = ctx;
  const port = await findFreePort();
  const prefix = `callgrind.${relay}`;
  const wrapper = ['valgrind', '--tool=callgrind', '--smc-check=all-non-file', '--separate-threads=yes', `--callgrind-out-file=${path.join(stack.logDir, `${prefix}.%p`)}`];
  const spec = relay === 'farebox' ? { args: stack.relays.web.args, env: { ...stack.relays.web.env, PORT: String(port) } } : { args: stack.relays.floor(port), env: stack.relays.web.env };
  const name = `${relay}-callgrind-${index}`;
  const url = `http://127.0.0.1:${port}`;
  // Each run charges its own account, so the runs' ledger batches do not contend.
  const key = relay === 'farebox' ? (await fundedAccount(stack.webUrl, stack.adminToken, `bench-${stack.runId}-callgrind-${index}`)).key : stack.account.key;
  try {
    const proc: BenchProcess = await boot(async () => {
      // Instruction counts do not depend on CPU contention, so the runs may share both cores.
      const started = stack.group.spawn({ name, core: `${LOAD_CORE},${GATEWAY_CORE}`, wrapper, cwd: process.cwd(), ...spec });
      await waitHttpReady(`${url}/${relay === 'farebox' ? 'readyz' : 'health'}`, started, 1_200_000);
      return started;
    });
    ctx.log(`${relay} run ${index + 1}: ready under callgrind; warming up`);
    await sendChats(url, key, WARM_UP_REQUESTS, CALLGRIND_TRIES);
    ctx.log(`${relay} run ${index + 1}: warmed up; quiet window`);
    await sleep(SETTLE_SECONDS * 1000);
    zeroCounters(proc.pid);
    const windows = await quietWindows(proc.pid);
    const countedFrom = performance.now();
    const refused = await sendChats(url, key, COUNTED_REQUESTS, CALLGRIND_TRIES);
    const countedSeconds = (performance.now() - countedFrom) / 1000;
    dumpCounters(proc.pid);
    // Dumps 1..IDLE_WINDOWS are the quiet windows; the next one is the counted calls.
    const idleRates = windows.map((seconds, i) => {
      const t = dumpTotals(stack.logDir, prefix, proc.pid, i + 1);
      return { all: Math.round(t.all / seconds), main: Math.round(t.main / seconds) };
    });
    const counted = dumpTotals(stack.logDir, prefix, proc.pid, IDLE_WINDOWS + 1);
    const lowest = (pick: (r: DumpTotals) => number): number => Math.min(...idleRates.map(pick));
    const run: CallgrindRun = {
      idleRates,
      counted,
      countedSeconds: Math.round(countedSeconds * 10) / 10,
      perRequest: steady(counted.all, lowest((r) => r.all), countedSeconds),
      mainThreadPerRequest: steady(counted.main, lowest((r) => r.main), countedSeconds),
      refused,
    };
    const rates = idleRates.map((r) => `${r.all}/s (event loop ${r.main}/s)`).join(', ');
    ctx.log(`${relay} run ${index + 1}: ${run.perRequest} instructions per request (${run.mainThreadPerRequest} on the event-loop thread); idle ${rates} over ${IDLE_WINDOWS} windows of ${IDLE_SECONDS} s, the lowest subtracted; ${COUNTED_REQUESTS} requests in ${run.countedSeconds} s${refused > 0 ? `; ${refused} answers were a 503 sent again (an upper bound)` : ''}`);
    return run;
  } finally {
    await stack.group.stop(name, 60_000);
  }
}

/**
 * Counts, with callgrind, the instructions a relay process executes per non-streamed chat call
 * in steady state: `RUNS` fresh copies of it, side by side, each warmed up, its idle rate
 * measured and subtracted (see countRun); the median run is reported. Unlike wall-clock rows,
 * the figure does not move with what else the shared machine runs.
 */
async function countRelay(ctx: ScenarioContext, relay: 'floor' | 'farebox', boot: ReturnType<typeof oneAtATime>): Promise<InstructionCount> {
  const runs = await Promise.all(Array.from({ length: RUNS }, (_, i) => countRun(ctx, relay, i, boot)));
  return {
    relay,
    requests: COUNTED_REQUESTS,
    runs,
    perRequest: median(runs.map((r) => r.perRequest)),
    mainThreadPerRequest: median(runs.map((r) => r.mainThreadPerRequest)),
  };
}

/**
 * Instructions per request of the floor and of Farebox (see countRelay). Both relays' runs go
 * side by side too: the floor's runs mostly wait on their calls, and the wall time of the
 * whole is then about that of Farebox's runs.
 */
export async function countInstructions(ctx: ScenarioContext): Promise<InstructionCount[]> {
  const boot = oneAtATime();
  return Promise.all([countRelay(ctx, 'floor', boot), countRelay(ctx, 'farebox', boot)]);
}
