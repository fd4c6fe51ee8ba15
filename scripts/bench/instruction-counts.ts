import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { findFreePort } from '../services/free-port.js';
import { waitHttpReady, type BenchProcess } from './bench-processes.js';
import { GATEWAY_CORE } from './bench-stack.js';
import { chatBody, chatHeaders } from './chat-requests.js';
import { timedPool } from './latency-stats.js';
import type { ScenarioContext } from './scenario-context.js';

/**
 * Requests sent before counting starts, so caches and pools are warm and the JIT has compiled
 * what is hot (with fewer, most of the count was still optimizing compilation).
 */
const WARM_UP_REQUESTS = 600;
/** Requests whose instructions are counted. */
const COUNTED_REQUESTS = 200;
/** Requests in flight at once, warming up and counted: a steady load, not one client idling. */
const IN_FLIGHT = 4;

/** Instructions one relay executed per request of the fixed mix. */
export interface InstructionCount {
  relay: 'floor' | 'farebox';
  requests: number;
  instructions: number;
  perRequest: number;
  /** Of `perRequest`, what the main (event-loop) thread executed; the rest is V8's and libuv's helper threads (compilation, GC). */
  mainThreadPerRequest: number;
}

/** True when valgrind's callgrind and its control tool are installed. */
export function callgrindAvailable(): boolean {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
    execFileSync('which', ['callgrind_control'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Sends `count` non-streamed chat calls, `IN_FLIGHT` at a time; throws on any non-200. */
async function send(url: string, key: string, count: number): Promise<void> {
  await timedPool(count, IN_FLIGHT, async () => {
    const res = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: chatHeaders(key), body: chatBody({ stream: false }), signal: AbortSignal.timeout(120_000) });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`a counted request answered ${res.status}`);
  });
}

/** The `totals:` (or `summary:`) line of a callgrind dump file. */
function totalOf(file: string): number {
  const match = /^(?:totals|summary): (\d+)/m.exec(readFileSync(file, 'utf8'));
  if (!match?.[1]) throw new Error(`no instruction total in ${file}`);
  return Number(match[1]);
}

/**
 * Instructions of the first dump (`<prefix>.<pid>.1-<thread>`, one file per thread with
 * `--separate-threads=yes`): all threads, and thread 1, the main thread.
 */
function dumpTotals(dir: string, prefix: string): { all: number; main: number } {
  const files = readdirSync(dir).filter((f) => f.startsWith(prefix) && /\.1-\d+$/.test(f));
  if (files.length === 0) throw new Error(`no callgrind dump for ${prefix}`);
  let all = 0;
  let main = 0;
  for (const file of files) {
    const total = totalOf(path.join(dir, file));
    all += total;
    if (file.endsWith('-01')) main = total;
  }
  return { all, main };
}

/**
 * Counts, with callgrind, the instructions a relay process executes for a fixed mix of
 * non-streamed chat calls: a fresh copy of it runs under valgrind, is warmed up, its counters
 * are zeroed, `COUNTED_REQUESTS` calls are sent (`IN_FLIGHT` at a time), and the counters are dumped.
 * Unlike wall-clock rows, the figure does not move with what else the shared machine runs.
 */
async function countRelay(ctx: ScenarioContext, relay: 'floor' | 'farebox'): Promise<InstructionCount> {
  const { stack } = ctx;
  const port = await findFreePort();
  const prefix = `callgrind.${relay}`;
  const wrapper = ['valgrind', '--tool=callgrind', '--smc-check=all-non-file', '--separate-threads=yes', `--callgrind-out-file=${path.join(stack.logDir, `${prefix}.%p`)}`];
  const spec = relay === 'farebox' ? { args: stack.relays.web.args, env: { ...stack.relays.web.env, PORT: String(port) } } : { args: stack.relays.floor(port), env: stack.relays.web.env };
  const proc: BenchProcess = stack.group.spawn({ name: `${relay}-callgrind`, core: GATEWAY_CORE, wrapper, cwd: process.cwd(), ...spec });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitHttpReady(`${url}/${relay === 'farebox' ? 'readyz' : 'health'}`, proc, 300_000);
    await send(url, stack.account.key, WARM_UP_REQUESTS);
    execFileSync('callgrind_control', ['--zero', String(proc.pid)], { stdio: 'ignore' });
    await send(url, stack.account.key, COUNTED_REQUESTS);
    execFileSync('callgrind_control', ['--dump', String(proc.pid)], { stdio: 'ignore' });
    const { all, main } = dumpTotals(stack.logDir, prefix);
    ctx.log(`${relay}: ${all} instructions (${main} on the main thread) for ${COUNTED_REQUESTS} requests under callgrind`);
    return { relay, requests: COUNTED_REQUESTS, instructions: all, perRequest: Math.round(all / COUNTED_REQUESTS), mainThreadPerRequest: Math.round(main / COUNTED_REQUESTS) };
  } finally {
    await stack.group.stop(proc.name);
  }
}

/** Instructions per request of the floor and of Farebox (see countRelay). */
export async function countInstructions(ctx: ScenarioContext): Promise<InstructionCount[]> {
  return [await countRelay(ctx, 'floor'), await countRelay(ctx, 'farebox')];
}
