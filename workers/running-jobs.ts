import type { Job, Processor } from 'bullmq';
import { within } from '../src/platform/runtime/index.js';

/** What handing running jobs back achieved. */
export interface ReturnedJobs {
  /** Moved back to `wait` now: another worker starts them at once. */
  returned: number;
  /** Redis did not take them back: their locks expire and stall recovery requeues them. */
  stalled: number;
}

/**
 * The jobs this process is running, with their lock tokens, so a shutdown that runs out of
 * time can hand them back to the queue instead of leaving them to expire.
 */
export class RunningJobs {
  private readonly jobs = new Map<string, { job: Job; token: string | undefined }>();
  private count = 0;

  /** Jobs being processed right now. */
  get size(): number {
    return this.jobs.size;
  }

  /** Jobs started since the process started. */
  get started(): number {
    return this.count;
  }

  /** Wraps a processor so its jobs are tracked while they run. */
  track<D, R>(processor: Processor<D, R>): Processor<D, R> {
    return async (job, token, signal) => {
      const key = `${job.queueName}:${job.id ?? ''}`;
      this.count += 1;
      this.jobs.set(key, { job, token });
      try {
        return await processor(job, token, signal);
      } finally {
        this.jobs.delete(key);
      }
    };
  }

  /**
   * Moves every running job back to `wait` (each bounded, Redis may be gone). Their processors
   * keep running until the process exits, but lost their lock, so nothing they do completes
   * the job; a retried job is still charged at most once (idempotent by request id).
   */
  async returnAll(timeoutMs: number): Promise<ReturnedJobs> {
    const running = [...this.jobs.values()];
    const outcomes = await Promise.all(running.map(({ job, token }) => within(job.moveToWait(token), timeoutMs)));
    const returned = outcomes.filter((o) => o === 'done').length;
    return { returned, stalled: running.length - returned };
  }
}
