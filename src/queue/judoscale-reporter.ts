import { Queue } from 'bullmq';
import type { Logger } from 'pino';
import type { Redis, RedisTarget } from '../platform/redis/index.js';
import { closeConnection, workerConnection } from './queue-connections.js';
import { QUEUE_NAMES, queuePrefix, type QueueName } from './queue-names.js';

/** Where Judoscale's reports go and who sends them. */
export interface JudoscaleSettings {
  /** `JUDOSCALE_URL`, which the Judoscale add-on sets; absent: nothing is reported. */
  readonly url: string | undefined;
  /** The container (Heroku's `DYNO`, e.g. `worker.1`; else the host name). */
  readonly container: string;
}

/** One queue as Judoscale's job-queue metrics see it. */
export interface QueueReading {
  readonly queue: QueueName;
  /** Jobs no worker has taken yet (waiting and prioritized). */
  readonly depth: number;
  /** Age of the oldest waiting job, ms (0 when none waits). */
  readonly latencyMs: number;
  /** Jobs being run. */
  readonly busy: number;
}

/** How often Judoscale's own adapters report. */
const REPORT_EVERY_MS = 10_000;

/** Reads one queue's depth, latency and busy count. */
export async function readQueue(name: QueueName, queue: Queue, now: number): Promise<QueueReading> {
  const counts = await queue.getJobCounts('waiting', 'prioritized', 'active');
  // Oldest first: the job that has waited longest is the queue's latency.
  const [oldest] = await queue.getJobs(['waiting'], 0, 0, true);
  return {
    queue: name,
    depth: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
    latencyMs: oldest === undefined ? 0 : Math.max(0, now - oldest.timestamp),
    busy: counts.active ?? 0,
  };
}

/**
 * The body of Judoscale's report (`POST /v3/reports`), as its Node adapters send it: metrics as
 * `[unix seconds, value, identifier, queue]` with `qd` (depth), `qt` (latency, ms) and `busy`.
 */
export function judoscaleReport(container: string, readings: readonly QueueReading[], now: number): Record<string, unknown> {
  const at = now / 1000;
  return {
    container,
    pid: process.pid,
    adapters: { 'farebox-bullmq': { adapter_version: '1' } },
    config: { container },
    metrics: readings.flatMap((r) => [
      [at, r.depth, 'qd', r.queue],
      [at, r.latencyMs, 'qt', r.queue],
      [at, r.busy, 'busy', r.queue],
    ]),
  };
}

/**
 * Reports the `images` and `ocr` queues to Judoscale every 10 s, so its autoscaler can scale
 * `worker` dynos on queue latency. Farebox's own reporter rather than the `judoscale-bullmq`
 * package: that one finds queues by BullMQ's default `bull` prefix (Farebox's queues live under
 * `<REDIS_PREFIX>:{<queue>}`) and supports BullMQ 4 and 5 only. Off unless `JUDOSCALE_URL` is set.
 */
export class JudoscaleReporter {
  private timer: NodeJS.Timeout | undefined;
  private readonly queues: ReadonlyArray<[QueueName, Queue]>;

  constructor(
    private readonly settings: JudoscaleSettings & { readonly url: string },
    private readonly connection: Redis,
    redisPrefix: string,
    private readonly log: Logger,
  ) {
    this.queues = QUEUE_NAMES.map((name) => [name, new Queue(name, { connection, prefix: queuePrefix(redisPrefix, name) })]);
  }

  /** Starts reporting, on a connection of its own, when `settings.url` is set; undefined otherwise. */
  static start(settings: JudoscaleSettings, redis: RedisTarget, redisPrefix: string, log: Logger): JudoscaleReporter | undefined {
    const { url } = settings;
    if (url === undefined) return undefined;
    const connection = workerConnection(redis, 'farebox-judoscale');
    connection.on('error', (err) => log.debug({ err }, 'judoscale redis error'));
    const reporter = new JudoscaleReporter({ ...settings, url }, connection, redisPrefix, log);
    reporter.timer = setInterval(() => void reporter.report(), REPORT_EVERY_MS);
    reporter.timer.unref();
    log.info({ container: settings.container }, 'reporting queue metrics to Judoscale');
    return reporter;
  }

  /** Sends one report; a failure is logged and the next report tries again. */
  async report(): Promise<void> {
    try {
      const now = Date.now();
      const readings = await Promise.all(this.queues.map(([name, queue]) => readQueue(name, queue, now)));
      const res = await fetch(new URL('v3/reports', `${this.settings.url.replace(/\/?$/, '/')}`), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(judoscaleReport(this.settings.container, readings, now)),
        signal: AbortSignal.timeout(5_000),
      });
      if (!res.ok) this.log.warn({ status: res.status }, 'Judoscale refused a report');
    } catch (err) {
      this.log.warn({ err }, 'Judoscale report failed');
    }
  }

  /** Stops reporting and closes its connection. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.queues.map(([, queue]) => queue.close()));
    await closeConnection(this.connection);
  }
}
