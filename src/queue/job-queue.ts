import { randomBytes } from 'node:crypto';
import { Queue, type JobsOptions } from 'bullmq';
import { createRedis, createSubscriber, listenOn, type Redis, waitReady } from '../platform/redis/index.js';
import type { Logger } from 'pino';
import type { Config } from '../platform/config/index.js';
import { JobAwaiter, type QueueObserver } from './job-awaiter.js';
import { decodeReply } from './job-reply.js';
import type { JobDataMap, JobResultMap } from './job-types.js';
import { PayloadStore, type PayloadInput } from './payload-store.js';
import { closeConnection, settleWithin } from './queue-connections.js';
import { QUEUE_NAMES, queuePrefix, type QueueName } from './queue-names.js';
import { traceCarrier } from '../platform/tracing/index.js';
import { AsyncJobs } from './async-jobs.js';

/** Retry policy shared by every job: transient failures back off 0.5 s, 1 s; others fail at once. */
export const JOB_OPTIONS: JobsOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 500 },
  // The output lives in the PayloadStore, so the job itself is not needed once it completed.
  removeOnComplete: true,
  // Failed jobs stay a while so a web that missed the event can still read why.
  removeOnFail: { age: 3_600, count: 1_000 },
};

/** How long inputs and outputs outlive the front door's wait, for stragglers and retries. */
const PAYLOAD_GRACE_MS = 60_000;

/** Options for tests and tuning. */
export interface JobQueueOptions {
  /** Backstop poll of job state while waiting; default 1 s. */
  pollMs?: number;
}

/** How to run one job. */
export interface RunOptions {
  /** How long the front door waits before giving up (504). */
  timeoutMs: number;
  /** Fires when the client goes away. */
  signal?: AbortSignal;
  /** Told once the job is in the queue (an async request is answered 202 then). */
  onQueued?: () => void;
}

/**
 * The web's side of the queue path: stores inputs, enqueues with job id = request id (so a
 * repeated enqueue is a no-op), waits for the outcome, and abandons the job when the front
 * door gives up. It never charges anything: see `runMeteredJob`.
 */
export class JobQueue {
  private constructor(
    private readonly queues: Readonly<Record<QueueName, Queue>>,
    private readonly connections: Redis[],
    readonly store: PayloadStore,
    private readonly awaiter: JobAwaiter,
    private readonly replyChannel: string,
    /** Jobs answered 202 and run on by this process (`Prefer: respond-async`). */
    readonly async: AsyncJobs,
  ) {}

  /** Connects the producers and the reply listener and waits until it listens. */
  static async open(config: Config, log: Logger, options: JobQueueOptions = {}): Promise<JobQueue> {
    // Producers fail fast while Redis is unreachable (503), like every other web-side client.
    const producer = createRedis(config.redis, 'farebox-producer');
    producer.on('error', (err) => log.debug({ err }, 'queue producer redis error'));
    // BullMQ checks the server version as it constructs a queue; without an offline queue
    // that check must find the connection ready.
    await waitReady(producer);
    const connections: Redis[] = [producer];
    const queues = {} as Record<QueueName, Queue>;
    for (const name of QUEUE_NAMES) {
      queues[name] = new Queue(name, { connection: producer, prefix: queuePrefix(config.redisPrefix, name), defaultJobOptions: JOB_OPTIONS, skipWaitingForReady: true });
      queues[name].on('error', (err) => log.debug({ err, queue: name }, 'queue error'));
    }
    const store = new PayloadStore(producer, config.redisPrefix);
    // No QueueEvents: workers reply to the waiting process directly (see JobAwaiter).
    const awaiter = new JobAwaiter(queues, {}, store, log, options.pollMs);
    // Workers publish each result on the channel of the process that waits for it (named in
    // the job), so a completion reaches the web in one hop, usually with the result inside.
    const replyChannel = store.replyChannel(randomBytes(9).toString('base64url'));
    const replies = createSubscriber(config.redis, 'farebox-job-replies');
    replies.on('error', (err) => log.debug({ err }, 'job replies redis error'));
    connections.push(replies);
    await listenOn(replies, replyChannel, (message) => {
      const reply = decodeReply(message);
      if (reply) awaiter.deliver(reply);
    });
    const started = async (name: QueueName, id: string): Promise<boolean> => (await (await queues[name].getJob(id))?.getState()) === 'active';
    const async = new AsyncJobs(producer, config.redisPrefix, config.jobResultTtlMs, started, log);
    return new JobQueue(queues, connections, store, awaiter, replyChannel, async);
  }

  /** Shows this process's queues and the timings of the jobs it waits for in `metrics`. */
  instrument(metrics: QueueObserver): void {
    for (const name of QUEUE_NAMES) metrics.watch(name, this.queues[name]);
    this.awaiter.observe(metrics);
  }

  /** The BullMQ queue behind a name (inspection in tools and tests). */
  queue(name: QueueName): Queue {
    return this.queues[name];
  }

  /**
   * Enqueues a job and waits for its result. On timeout or client abort the job is abandoned
   * (removed if not started, marked cancelled otherwise, payloads dropped) and the error is
   * rethrown; a failed job rethrows the GatewayError the worker reported.
   */
  async run<Q extends QueueName>(queue: Q, data: JobDataMap[Q], inputs: readonly PayloadInput[], options: RunOptions): Promise<JobResultMap[Q]> {
    const id = data.requestId;
    const inputNames = inputs.map((input) => input.name);
    const pending = this.awaiter.register(queue, id);
    try {
      await this.store.putInputs(id, inputs, options.timeoutMs + PAYLOAD_GRACE_MS);
      await this.queues[queue].add(data.op, { ...data, replyTo: this.replyChannel, trace: traceCarrier() }, { jobId: id });
      options.onQueued?.();
    } catch (err) {
      pending.cancel();
      await this.store.clear(id, inputNames).catch(() => undefined);
      throw err;
    }
    let outcome;
    try {
      outcome = await pending.wait(options.timeoutMs, options.signal);
    } catch (err) {
      await this.abandon(queue, id, inputNames);
      throw err;
    }
    if (outcome.status === 'failed') {
      await this.store.clear(id, inputNames).catch(() => undefined);
      throw outcome.error;
    }
    return outcome.result as JobResultMap[Q];
  }

  /** Drops a delivered request's payloads. */
  async discard(requestId: string, inputNames: readonly string[]): Promise<void> {
    await this.store.clear(requestId, inputNames);
  }

  /**
   * Gives up on a job: a waiting or delayed job is removed outright; a running one is marked
   * cancelled so its worker aborts and stores nothing. Best effort: Redis being down here
   * leaves the TTLs and the job's deadline to clean up.
   */
  async abandon(queue: QueueName, requestId: string, inputNames: readonly string[]): Promise<void> {
    try {
      await this.store.markCancelled(requestId, PAYLOAD_GRACE_MS);
      await this.queues[queue].remove(requestId);
      await this.store.clear(requestId, inputNames);
    } catch {
      // see above
    }
  }

  /**
   * Closes listeners and producers. BullMQ's own close can wait forever for a client that is
   * between reconnect attempts, so it gets two seconds before the connections are dropped.
   */
  async close(): Promise<void> {
    const closing = Object.values(this.queues).map((q) => q.close());
    await settleWithin(Promise.allSettled(closing), 2_000);
    await Promise.all(this.connections.map((c) => closeConnection(c)));
  }
}
