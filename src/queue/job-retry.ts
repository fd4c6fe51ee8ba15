/** When a job was queued, when this attempt started, and when nobody waits for it any more (epoch ms). */
export interface AttemptTimes {
  readonly queuedAt: number;
  readonly startedAt: number;
  readonly deadline: number;
}

/** A failure slower than this share of the job's whole wait is not tried again. */
const QUICK_SHARE = 0.1;

/**
 * Whether a transient failure gets another try (BullMQ's backoff, then the same job again).
 * Only a quick one, within a tenth of the client's whole wait (18 s of the default 180 s), and
 * only while twice its time is still left before the deadline. A provider that took 40 s to
 * fail would most likely take 40 s again, and the client would hear of it minutes later; it is
 * answered now, and the routes of the model have been tried in the attempt already.
 */
export function retryFits(times: AttemptTimes, now: number): boolean {
  const took = now - times.startedAt;
  return took <= (times.deadline - times.queuedAt) * QUICK_SHARE && times.deadline - now >= 2 * took;
}
