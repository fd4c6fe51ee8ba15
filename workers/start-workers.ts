import { hostname } from 'node:os';
import { Worker } from 'bullmq';
import type { Logger } from 'pino';
import type { Config } from '../src/platform/config/index.js';
import type { Redis } from '../src/platform/redis/index.js';
import type { ProviderRegistry } from '../src/providers/index.js';
import { closeConnection, isJobErrorReason, PayloadStore, type QueueName, queuePrefix, workerConnection } from '../src/queue/index.js';
import { RouteHealth } from '../src/routing/index.js';
import { imagesProcessor } from './processors/images-processor.js';
import type { ProcessorContext } from './processors/job-runner.js';
import { ocrProcessor } from './processors/ocr-processor.js';
import { RunningJobs } from './running-jobs.js';

/** The running BullMQ workers of this process. */
export interface RunningWorkers {
  names: string[];
  /** Jobs this process is running right now. */
  readonly jobs: RunningJobs;
  /** Health of the job routes this process called (breaker, Retry-After), per process as in the web. */
  readonly routeHealth: RouteHealth;
  /** Stops taking new jobs and waits for the running ones (callers bound the wait). */
  finish(): Promise<void>;
  /** Drops the Redis connections: QUIT when Redis answers, a hard disconnect otherwise. */
  disconnect(): Promise<void>;
  /** finish() then disconnect(). */
  close(): Promise<void>;
}

/** Lock and stall-check timing of the workers. */
export interface StallSettings {
  lockDuration: number;
  stalledInterval: number;
}

/**
 * Derives stalled-job timing from the front door's wait: a killed worker's job must be back
 * in the queue well inside that wait, so the lock lasts a tenth of it (between 4 s and 30 s,
 * renewed every half lock) and stalls are checked every half lock. A job of a killed worker
 * is picked up again within about two locks.
 */
export function stallSettings(jobTimeoutMs: number): StallSettings {
  const lockDuration = Math.min(30_000, Math.max(4_000, Math.round(jobTimeoutMs / 10)));
  return { lockDuration, stalledInterval: Math.round(lockDuration / 2) };
}

/**
 * How many times a job may be found stalled (its worker gone without finishing it) before the
 * queue fails it. Stalls are not the job's fault: a supervisor restarts a killed worker within
 * seconds, and a second kill soon after (a crash loop, a restart under load) drops the jobs
 * that worker had recovered from the first. With one allowed stall those jobs were failed
 * unrun ("job stalled more than allowable limit", a 502 to the client). Three lets a job
 * outlive three kills of its worker in a row; the job's deadline still bounds its reruns, and
 * a job that kills every worker that runs it is failed on its fourth stall.
 */
export const MAX_STALLS = 3;

/** What the workers need from their process: settings, a logger and the job adapters. */
export interface WorkerDeps {
  readonly config: Pick<Config, 'redis' | 'redisPrefix' | 'jobTimeoutMs' | 'workerConcurrency' | 'routes'>;
  readonly log: Logger;
  readonly providers: Pick<ProviderRegistry, 'images' | 'ocr'>;
}

/**
 * Starts one BullMQ worker per queue (`images`, `ocr`), each running `WORKER_CONCURRENCY`
 * jobs at once. Connections reconnect forever (a Redis restart pauses work, it does not end
 * it). `close()` stops taking jobs and waits for running ones; jobs still running when the
 * process is killed are recovered by another worker's stall check.
 */
export async function startWorkers(deps: WorkerDeps): Promise<RunningWorkers> {
  const { config, log } = deps;
  const connections: Redis[] = [];
  const connect = (name: string): Redis => {
    const redis = workerConnection(config.redis, name);
    redis.on('error', (err) => log.debug({ err, connection: name }, 'worker redis error'));
    connections.push(redis);
    return redis;
  };
  const routeHealth = new RouteHealth(config.routes);
  const ctx: ProcessorContext = {
    store: new PayloadStore(connect('farebox-worker-payloads'), config.redisPrefix),
    providers: deps.providers,
    log,
    routeHealth,
    routeRetryBudgetMs: config.routes.retryBudgetMs,
    routeQuickFailureMs: config.routes.quickFailureMs,
  };
  const jobs = new RunningJobs();
  const timing = stallSettings(config.jobTimeoutMs);
  const common = {
    concurrency: config.workerConcurrency,
    name: `${hostname()}:${process.pid}`,
    maxStalledCount: MAX_STALLS,
    ...timing,
  };
  const workers: Record<QueueName, Worker> = {
    images: new Worker('images', jobs.track(imagesProcessor(ctx)), { ...common, prefix: queuePrefix(config.redisPrefix, 'images'), connection: connect('farebox-worker-images') }),
    ocr: new Worker('ocr', jobs.track(ocrProcessor(ctx)), { ...common, prefix: queuePrefix(config.redisPrefix, 'ocr'), connection: connect('farebox-worker-ocr') }),
  };
  for (const [name, worker] of Object.entries(workers)) {
    worker.on('error', (err) => log.warn({ err, queue: name }, 'worker error'));
    worker.on('stalled', (jobId) => log.warn({ queue: name, job_id: jobId }, 'stalled job moved back to wait'));
    // Failures the processor reported are logged by it; the queue's own (a job stalled too
    // often) never reach the processor and would otherwise leave no trace.
    worker.on('failed', (job, err) => {
      if (!isJobErrorReason(err.message)) log.warn({ queue: name, job_id: job?.id, reason: err.message }, 'job failed by the queue');
    });
  }
  await Promise.all(Object.values(workers).map((w) => w.waitUntilReady()));
  const finish = async (): Promise<void> => {
    await Promise.all(Object.values(workers).map((w) => w.close()));
  };
  const disconnect = async (): Promise<void> => {
    await Promise.all(connections.map((c) => closeConnection(c)));
  };
  return {
    names: Object.keys(workers),
    jobs,
    routeHealth,
    finish,
    disconnect,
    async close() {
      await finish();
      await disconnect();
    },
  };
}
