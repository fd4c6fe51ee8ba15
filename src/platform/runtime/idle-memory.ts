import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Logger } from 'pino';

/** How often the process looks at its memory and its event loop, by default. */
const CHECK_EVERY_MS = 5_000;
/** Event-loop utilization over one check below which the process counts as quiet. */
const QUIET_UTILIZATION = 0.05;
/** Resident memory outside the JavaScript heap, above what it was after the last return, worth giving back. */
const SLACK_BYTES = 128 * 2 ** 20;
/**
 * Fewest milliseconds between two returns. Each return needs a burst of its own (the slack grows
 * again only with new load); the gap only keeps two from running back to back.
 */
const MIN_GAP_MS = 15_000;

/** One look at the process: its resident memory, its committed heap and its event loop. */
export interface MemorySample {
  readonly rss: number;
  readonly heapTotal: number;
  /** Share of the time since the previous look the event loop was busy (0–1). */
  readonly utilization: number;
  readonly now: number;
}

/** What the decision remembers between looks. */
export interface ReturnState {
  /** Resident memory outside the heap right after the last return (0 before the first). */
  held: number;
  /** When the last return ran (-Infinity before the first). */
  at: number;
}

/**
 * Whether to return memory now: the loop is quiet, the last return is long enough ago, and
 * resident memory outside the committed heap has grown by the slack since the last return.
 * Memory outside `heapTotal` is what V8 keeps pooled after a burst (plus the binary and the
 * allocator's own), so the new space or live objects growing under load never trigger it.
 */
export function shouldReturnMemory(sample: MemorySample, state: ReturnState): boolean {
  if (sample.utilization >= QUIET_UTILIZATION || sample.now - state.at < MIN_GAP_MS) return false;
  return sample.rss - sample.heapTotal - state.held > SLACK_BYTES;
}

type CollectGarbage = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/**
 * The engine's collector, with its options. Exposing it for one call (and hiding it again)
 * leaves `globalThis.gc` as the process was started.
 */
function collector(): CollectGarbage {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return exposed as CollectGarbage;
  setFlagsFromString('--expose-gc');
  try {
    return runInNewContext('gc') as CollectGarbage;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

/**
 * Gives the memory a burst took back to the system once the process is quiet again.
 *
 * V8 keeps the pages a burst freed in a pool, still resident, and releases them only in a
 * memory-reducing collection. Its own memory reducer decides from an allocation rate it samples
 * at collections; a process that went quiet collects no more, so that rate stays "high" and the
 * reducer never runs: a web that took one burst of traffic kept its peak (hundreds of MB) for
 * good. Here, a quiet process whose resident memory outside the heap grew runs one such
 * collection (the engine's "last resort": several full collections that release the pool).
 * It stops the event loop while it runs (0.2–0.35 s measured on a web after a burst of load),
 * which is why it waits until the loop has been quiet for two looks and runs once per burst.
 */
export function returnIdleMemory(log: Logger, everyMs = CHECK_EVERY_MS): { stop(): void } {
  const collect = collector();
  const state: ReturnState = { held: 0, at: Number.NEGATIVE_INFINITY };
  // The loop's readings at the last two looks: quiet means quiet over both intervals.
  let older: EventLoopUtilization = performance.eventLoopUtilization();
  let last = older;
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const utilization = performance.eventLoopUtilization(now, older).utilization;
    older = last;
    last = now;
    const { rss, heapTotal } = process.memoryUsage();
    if (!shouldReturnMemory({ rss, heapTotal, utilization, now: performance.now() }, state)) return;
    const started = performance.now();
    collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    const after = process.memoryUsage();
    state.held = after.rss - after.heapTotal;
    state.at = performance.now();
    older = last = performance.eventLoopUtilization();
    log.info({ rss_before: rss, rss_after: after.rss, pause_ms: Math.round(state.at - started) }, 'returned idle memory');
  }, everyMs);
  // Never keeps the process alive.
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
