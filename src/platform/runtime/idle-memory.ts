import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Logger } from 'pino';

/** How often the process looks at its memory and its event loop, by default. */
const CHECK_EVERY_MS = 5_000;
/**
 * How long a process must have started no new work (a request, a job) before a return, by
 * default. A return stops the loop for a few hundred milliseconds; after this long without
 * traffic, the next request is unlikely to arrive during one.
 */
const QUIET_MS = 30_000;
/** Event-loop utilization since the previous look below which the process counts as quiet. */
const QUIET_UTILIZATION = 0.05;
/** Growth since the last collection here (outside the committed heap, or of the heap) worth acting on. */
const SLACK_BYTES = 128 * 2 ** 20;

/** One look at the process: its resident memory, its committed heap, its event loop and its work. */
export interface MemorySample {
  readonly rss: number;
  readonly heapTotal: number;
  /** Share of the time since the previous look the event loop was busy (0–1). */
  readonly utilization: number;
  /** Milliseconds since the process last started new work. */
  readonly idleMs: number;
}

/** What the process held after its last return (outside the committed heap) and its last collection here (the heap), or as it started. */
export interface HeldMemory {
  readonly outside: number;
  readonly heap: number;
}

/**
 * What one look decides, once no new work has started for `quietMs` and the loop is quiet (a
 * long request or an open stream may still run):
 * - `return` when resident memory outside the committed heap grew by the slack since the last
 *   return. That is what V8 keeps pooled after a burst (plus the binary and the allocator's
 *   own); the new space or live objects growing never count as it.
 * - `collect` when, instead, the committed heap itself grew by the slack: the burst's garbage may
 *   still be in it, because the process went quiet before a full collection ran (a loaded
 *   machine, or a burst that ended mid-cycle). One ordinary collection frees it into the pool,
 *   which the next look returns; live objects only cost that one collection, since the heap
 *   after it is the new baseline.
 * - `wait` otherwise.
 */
export function idleMemoryStep(sample: MemorySample, held: HeldMemory, quietMs = QUIET_MS): 'wait' | 'collect' | 'return' {
  if (sample.idleMs < quietMs || sample.utilization >= QUIET_UTILIZATION) return 'wait';
  if (sample.rss - sample.heapTotal - held.outside > SLACK_BYTES) return 'return';
  return sample.heapTotal - held.heap > SLACK_BYTES ? 'collect' : 'wait';
}

/** What `returnIdleMemory` watches, and how often. */
export interface IdleMemoryOptions {
  /** A count that grows whenever the process starts new work (requests served, jobs started). */
  activity: () => number;
  everyMs?: number;
  quietMs?: number;
}

type CollectGarbage = (options: { type: 'major'; execution: 'sync'; flavor?: 'last-resort' }) => void;

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

/** A process's memory as held: outside its committed heap, and the heap. */
function heldIn(usage: { rss: number; heapTotal: number }): HeldMemory {
  return { outside: usage.rss - usage.heapTotal, heap: usage.heapTotal };
}

/**
 * Gives the memory a burst took back to the system once the process is idle again.
 *
 * V8 keeps the pages a burst freed in a pool, still resident, and releases them only in a
 * memory-reducing collection. Its own memory reducer decides from an allocation rate it samples
 * at collections; a process that went quiet collects no more, so that rate stays "high" and the
 * reducer never runs: a web that took one burst of traffic kept its peak (hundreds of MB) for
 * good. Here, an idle process whose resident memory outside the heap grew runs one such
 * collection (the engine's "last resort": several full collections that release the pool); one
 * whose heap grew first runs an ordinary collection, so its garbage reaches the pool (see
 * {@link idleMemoryStep}).
 * Either stops the event loop while it runs (a return 0.26–0.57 s on webs after a burst of load,
 * most of it giving the pages back; an ordinary collection 0.1–0.18 s), which is why both wait
 * until no new work has started for `quietMs`: after a shorter wait, a return ran just as the
 * next burst's first request came.
 */
export function returnIdleMemory(log: Logger, { activity, everyMs = CHECK_EVERY_MS, quietMs = QUIET_MS }: IdleMemoryOptions): { stop(): void } {
  const collect = collector();
  // What the process holds as it starts counts as held: only what a burst adds is returned. (From
  // zero, an idle worker, whose native libraries alone are 140 MB outside the heap, paused for
  // 0.7 s to give back 5 MB.)
  let held = heldIn(process.memoryUsage());
  let seen = activity();
  let workedAt = performance.now();
  let previous = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.now();
    const count = activity();
    if (count !== seen) {
      seen = count;
      workedAt = now;
    }
    const current = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(current, previous);
    previous = current;
    const { rss, heapTotal } = process.memoryUsage();
    const step = idleMemoryStep({ rss, heapTotal, utilization, idleMs: now - workedAt }, held, quietMs);
    if (step === 'wait') return;
    collect(step === 'return' ? { type: 'major', execution: 'sync', flavor: 'last-resort' } : { type: 'major', execution: 'sync' });
    const after = process.memoryUsage();
    // What an ordinary collection freed is pooled outside the heap now: the next look returns it.
    held = step === 'return' ? heldIn(after) : { ...held, heap: after.heapTotal };
    previous = performance.eventLoopUtilization();
    const figures = { rss_before: rss, rss_after: after.rss, heap_before: heapTotal, heap_after: after.heapTotal, pause_ms: Math.round(performance.now() - now) };
    if (step === 'return') log.info(figures, 'returned idle memory');
    else log.debug(figures, 'collected idle heap');
  }, everyMs);
  // Never keeps the process alive.
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
