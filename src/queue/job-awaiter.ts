import type { Queue, QueueEvents } from 'bullmq';
import type { Logger } from 'pino';
import { GatewayError } from '../platform/errors/index.js';
import { decodeJobError } from './job-error.js';
import type { JobReply, JobTiming } from './job-reply.js';
import type { PayloadStore } from './payload-store.js';
import type { QueueName } from './queue-names.js';

/** How a job ended, as far as the web is concerned. */
export type JobOutcome = { status: 'completed'; result: unknown } | { status: 'failed'; error: GatewayError };

/** Told once per job this process waited for, when it finished (metrics). */
export interface JobObserver {
  jobFinished(queue: QueueName, outcome: JobOutcome['status'], timing: JobTiming): void;
}

/** Watches the queues (the process's queue metrics): their job counts, and each finished job. */
export interface QueueObserver extends JobObserver {
  /** Reads this queue's job counts from now on. */
  watch(name: QueueName, queue: { getJobCounts(): Promise<Record<string, number>> }): void;
}

/** An outcome with the job's timing when it is known. */
type TimedOutcome = JobOutcome & { timing?: JobTiming | undefined };

/** A registered wait: register before enqueueing, so no completion can slip past. */
export interface PendingJob {
  /** Resolves with the outcome; rejects on timeout (504) or when the signal fires. */
  wait(timeoutMs: number, signal?: AbortSignal): Promise<JobOutcome>;
  /** Stops waiting without an outcome (enqueueing failed). */
  cancel(): void;
}

interface Waiter {
  settle(outcome: JobOutcome): void;
}

/**
 * A job that vanished from the queue before finishing. Only Redis losing data does that (a
 * failover to a replica that had not seen it, a restart without persistence), so it is the
 * store's transient failure, answered like the others: 503 with Retry-After. Nothing was
 * charged for it: the result, if any, never reached the web.
 */
const lost = (): JobOutcome => ({
  status: 'failed',
  error: new GatewayError('service_unavailable', 'The job was lost in a queue store failover before it finished; retry the request.', { retryAfterSeconds: 1 }),
});

/**
 * Waits for jobs to finish. The completion events are the workers' replies on this process's
 * pub/sub channel ({@link deliver}): a success carrying the result itself unless it is large,
 * or a final failure. Only the jobs this process waits for reach it, where BullMQ's QueueEvents
 * would bring every event of every job to every web process. QueueEvents may still be given
 * (one listener per queue, resuming from its last event id after a reconnect). The backstop is
 * a poll of the stored result and the job's state every `pollMs`, so a reply missed during a
 * reconnect, or a failure only BullMQ saw (a job that stalled too often), costs latency, never
 * a lost completion.
 */
export class JobAwaiter {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private observer: JobObserver | undefined;

  constructor(
    private readonly queues: Readonly<Record<QueueName, Queue>>,
    events: Readonly<Partial<Record<QueueName, QueueEvents>>>,
    private readonly store: PayloadStore,
    private readonly log: Logger,
    private readonly pollMs = 1_000,
  ) {
    for (const [name, queueEvents] of Object.entries(events) as Array<[QueueName, QueueEvents]>) {
      queueEvents.on('completed', ({ jobId }) => this.onEvent(name, jobId));
      queueEvents.on('failed', ({ jobId, failedReason }) => {
        this.resolve(name, jobId, { status: 'failed', error: decodeJobError(failedReason) });
      });
    }
  }

  /** Reports each finished job's timing to `observer` from now on. */
  observe(observer: JobObserver): void {
    this.observer = observer;
  }

  /** A worker's published reply: settles its waiters, reading the stored result if the reply left it out. */
  deliver(reply: JobReply): void {
    if (!this.waiters.has(`${reply.queue}:${reply.id}`)) return;
    if (reply.failedReason !== undefined) {
      this.resolve(reply.queue, reply.id, { status: 'failed', error: decodeJobError(reply.failedReason), timing: reply.timing });
      return;
    }
    if (reply.result !== undefined) {
      this.resolve(reply.queue, reply.id, { status: 'completed', result: reply.result, timing: reply.timing });
      return;
    }
    this.onEvent(reply.queue, reply.id);
  }

  /** Registers interest in a job that is about to be enqueued. */
  register(queue: QueueName, jobId: string): PendingJob {
    const key = `${queue}:${jobId}`;
    let settle: (outcome: JobOutcome) => void = () => undefined;
    const outcome = new Promise<JobOutcome>((resolve) => {
      settle = resolve;
    });
    const waiter: Waiter = { settle: (o) => settle(o) };
    const set = this.waiters.get(key) ?? new Set<Waiter>();
    set.add(waiter);
    this.waiters.set(key, set);
    const unregister = (): void => {
      set.delete(waiter);
      if (set.size === 0 && this.waiters.get(key) === set) this.waiters.delete(key);
    };
    return {
      wait: (timeoutMs, signal) => this.waitFor(queue, jobId, outcome, unregister, timeoutMs, signal),
      cancel: unregister,
    };
  }

  private async waitFor(
    queue: QueueName,
    jobId: string,
    outcome: Promise<JobOutcome>,
    unregister: () => void,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<JobOutcome> {
    let poll: NodeJS.Timeout | undefined;
    let deadline: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const schedulePoll = (): void => {
      poll = setTimeout(() => {
        void this.check(queue, jobId).then((o) => (o ? this.resolve(queue, jobId, o) : schedulePoll()));
      }, this.pollMs);
    };
    try {
      return await new Promise<JobOutcome>((resolve, reject) => {
        outcome.then(resolve, reject);
        deadline = setTimeout(
          () => reject(new GatewayError('upstream_timeout', `The ${queue} job did not finish within ${timeoutMs} ms.`)),
          timeoutMs,
        );
        if (signal) {
          onAbort = () => reject(signal.reason ?? new Error('aborted'));
          if (signal.aborted) onAbort();
          else signal.addEventListener('abort', onAbort, { once: true });
        }
        schedulePoll();
      });
    } finally {
      clearTimeout(poll);
      clearTimeout(deadline);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      unregister();
    }
  }

  private onEvent(queue: QueueName, jobId: string): void {
    if (!this.waiters.has(`${queue}:${jobId}`)) return;
    // An undefined answer means Redis trouble; the poll will ask again.
    void this.check(queue, jobId).then((o) => o && this.resolve(queue, jobId, o));
  }

  private resolve(queue: QueueName, jobId: string, timed: TimedOutcome): void {
    const key = `${queue}:${jobId}`;
    const set = this.waiters.get(key);
    if (!set) return;
    // Out of the map at once: a second signal for the same job (reply, event, poll) finds nothing.
    this.waiters.delete(key);
    const { timing, ...outcome } = timed;
    for (const waiter of set) waiter.settle(outcome as JobOutcome);
    this.report(queue, jobId, outcome.status, timing);
  }

  private report(queue: QueueName, jobId: string, status: JobOutcome['status'], timing: JobTiming | undefined): void {
    const observer = this.observer;
    if (!observer) return;
    if (timing) {
      observer.jobFinished(queue, status, timing);
      return;
    }
    // Failures (and completions seen without a reply) carry no timing: BullMQ's job hash has it.
    void this.queues[queue].getJob(jobId).then(
      (job) => {
        if (job?.processedOn === undefined || job.finishedOn === undefined) return;
        observer.jobFinished(queue, status, { queuedAt: job.timestamp, startedAt: job.processedOn, finishedAt: job.finishedOn });
      },
      () => undefined,
    );
  }

  /**
   * Reads where a job stands: its stored result first (written before the job completes), then
   * its BullMQ state. Undefined while it is still waiting, delayed or running.
   */
  async check(queue: QueueName, jobId: string): Promise<TimedOutcome | undefined> {
    // Images are answered with their base64 as stored (see ImagesJobResult); other results are
    // read as text, since their answers are built as JSON.
    const bytes = queue === 'images';
    try {
      const reply = await this.store.getReply(jobId, bytes);
      if (reply?.result !== undefined) return { status: 'completed', result: reply.result, timing: reply.timing };
      const job = await this.queues[queue].getJob(jobId);
      const state = job ? await job.getState() : 'unknown';
      if (job && state === 'failed') return { status: 'failed', error: decodeJobError(job.failedReason) };
      if (state !== 'completed' && state !== 'unknown') return undefined;
      // Finished or gone: a result written in between still counts.
      const late = await this.store.getReply(jobId, bytes);
      return late?.result === undefined ? lost() : { status: 'completed', result: late.result, timing: late.timing };
    } catch (err) {
      // Redis trouble: keep waiting; the deadline still bounds the request.
      this.log.warn({ err, queue, job_id: jobId }, 'job state check failed');
      return undefined;
    }
  }
}
