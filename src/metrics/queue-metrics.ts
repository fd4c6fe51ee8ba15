import { Gauge, Histogram, type Registry } from 'prom-client';
import type { JobTiming, QueueObserver } from '../queue/index.js';

/** A queue whose job counts can be read (BullMQ's `Queue.getJobCounts`). */
export interface CountedQueue {
  getJobCounts(): Promise<Record<string, number>>;
}

/** How long counts read from Redis are reused, so frequent or parallel scrapes cost one read. */
export const COUNTS_CACHE_MS = 1_000;
/** A scrape waits at most this long for Redis before it shows the last counts it has. */
export const COUNTS_TIMEOUT_MS = 500;

/** Counts older than this are left out rather than shown as if current (Redis down for long). */
export const COUNTS_STALE_MS = 30_000;

/** Processing-time buckets: a few ms (instant models) to minutes (large image edits, long PDFs). */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300];
/** Queueing-time buckets: sub-ms when workers keep up, up to minutes when they do not. */
const WAIT_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

interface CachedCounts {
  readAt: number;
  counts: Record<string, number> | undefined;
  reading: Promise<void> | undefined;
}

/**
 * Queue metrics, the signal for scaling worker processes:
 * - `farebox_queue_jobs{queue,state}`: jobs per BullMQ state, read with `getJobCounts` when
 *   Prometheus scrapes (cached {@link COUNTS_CACHE_MS}); while Redis does not answer, the last
 *   counts read are shown for up to {@link COUNTS_STALE_MS} (then none), and the scrape itself
 *   never fails.
 * - `farebox_job_duration_seconds{queue,outcome}`: processing time (taken by a worker to
 *   finished) of the jobs this process waited for.
 * - `farebox_job_wait_seconds{queue}`: time those jobs were queued before a worker took them.
 */
export class QueueMetrics implements QueueObserver {
  private readonly sources = new Map<string, { queue: CountedQueue; cache: CachedCounts }>();
  private readonly duration: Histogram<'queue' | 'outcome'>;
  private readonly wait: Histogram<'queue'>;

  constructor(registry: Registry) {
    const registers = [registry];
    const self = this;
    new Gauge({
      name: 'farebox_queue_jobs',
      help: 'Jobs per queue and BullMQ state (waiting, active, delayed, failed, ...), read at scrape time',
      labelNames: ['queue', 'state'],
      registers,
      async collect() {
        this.reset();
        for (const [name, counts] of await self.counts()) {
          for (const [state, count] of Object.entries(counts)) this.set({ queue: name, state }, count);
        }
      },
    });
    this.duration = new Histogram({
      name: 'farebox_job_duration_seconds',
      help: 'Job processing time, from a worker taking it to its end, by outcome',
      labelNames: ['queue', 'outcome'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.wait = new Histogram({
      name: 'farebox_job_wait_seconds',
      help: 'Time a job waited in its queue before a worker took it',
      labelNames: ['queue'],
      buckets: WAIT_BUCKETS,
      registers,
    });
  }

  /** Shows this queue's counts from now on (a second queue of the same name replaces the first). */
  watch(name: string, queue: CountedQueue): void {
    this.sources.set(name, { queue, cache: { readAt: -Infinity, counts: undefined, reading: undefined } });
  }

  /** Records a finished job's processing and queueing time. */
  jobFinished(queue: string, outcome: string, timing: JobTiming): void {
    this.duration.observe({ queue, outcome }, Math.max(0, timing.finishedAt - timing.startedAt) / 1000);
    this.wait.observe({ queue }, Math.max(0, timing.startedAt - timing.queuedAt) / 1000);
  }

  private async counts(): Promise<Array<[string, Record<string, number>]>> {
    const entries = [...this.sources.entries()];
    await Promise.all(entries.map(([, source]) => refresh(source.queue, source.cache)));
    const now = performance.now();
    return entries.flatMap(([name, { cache }]) =>
      cache.counts && now - cache.readAt < COUNTS_STALE_MS ? [[name, cache.counts] as [string, Record<string, number>]] : [],
    );
  }
}

/** Reads fresh counts unless the cached ones are recent; one read at a time, bounded. */
async function refresh(queue: CountedQueue, cache: CachedCounts): Promise<void> {
  if (performance.now() - cache.readAt < COUNTS_CACHE_MS) return;
  cache.reading ??= queue.getJobCounts().then(
    (counts) => {
      cache.counts = counts;
      cache.readAt = performance.now();
    },
    // Redis trouble: keep the last counts; the next scrape tries again.
    () => undefined,
  ).finally(() => {
    cache.reading = undefined;
  });
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([cache.reading, new Promise((resolve) => (timer = setTimeout(resolve, COUNTS_TIMEOUT_MS)))]);
  clearTimeout(timer);
}
