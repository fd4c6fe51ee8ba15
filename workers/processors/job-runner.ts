import { UnrecoverableError, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { classifyError, GatewayError } from '../../src/platform/errors/index.js';
import {
  type AnyJobData,
  type BlobRef,
  encodeJobError,
  isTransient,
  type JobSummary,
  type PayloadStore,
  type QueueName,
  retryFits,
} from '../../src/queue/index.js';
import type { ImageFile, ProviderRegistry } from '../../src/providers/index.js';
import { inRemoteSpan } from '../../src/platform/tracing/index.js';
import { AttemptList } from '../../src/routing/index.js';
import type { JobRouting } from './job-routes.js';

/** What processors need: the payload store, the job adapters, and the routes' failover policy. */
export interface ProcessorContext extends JobRouting {
  readonly store: PayloadStore;
  readonly providers: Pick<ProviderRegistry, 'images' | 'ocr'>;
  readonly log: Logger;
  /** How often a running job checks whether the web gave up on it. */
  readonly cancelPollMs?: number;
}

/** What a processor's work produced: the full output to store and its small summary. */
export interface JobWork {
  result: { cost: string };
  summary: JobSummary;
}

/** A processor's work: the provider call under the job's signal, its routes' attempts noted in `attempts`. */
export type JobWorkFn = (signal: AbortSignal, attempts: AttemptList) => Promise<JobWork>;

/** An error that no retry can fix (inputs gone, request abandoned): fail the job at once. */
class PermanentJobError extends Error {
  constructor(readonly error: GatewayError) {
    super(error.message);
  }
}

/** How long a stored output outlives the job's deadline. */
const RESULT_GRACE_MS = 60_000;

function jobFailure(thrown: unknown, retry: boolean, attempts: AttemptList): Error {
  if (thrown instanceof PermanentJobError) return new UnrecoverableError(encodeJobError(thrown.error, attempts.attempts));
  const err = classifyError(thrown);
  if (!retry || !isTransient(err)) return new UnrecoverableError(encodeJobError(err, attempts.attempts));
  return new Error(encodeJobError(err, attempts.attempts));
}

/**
 * Reads one stored input. Inputs live until the job's deadline, so one missing after it means
 * the request expired; one missing before it was lost by Redis (a failover to a replica that had
 * not seen it): the store's transient failure, a 503 the client's retry gets past.
 */
export async function loadBlob(ctx: ProcessorContext, job: { requestId: string; deadline: number }, ref: BlobRef): Promise<ImageFile> {
  const data = await ctx.store.getInput(job.requestId, ref.name);
  if (data !== null) return { data, filename: ref.filename, contentType: ref.contentType };
  throw new PermanentJobError(
    Date.now() < job.deadline
      ? new GatewayError('service_unavailable', "The job's input was lost in a queue store failover; retry the request.", { retryAfterSeconds: 1 })
      : new GatewayError('upstream_timeout', 'The request expired before its job could run.'),
  );
}

/** When the job was queued and when this attempt started. */
function timingOf(job: Job<AnyJobData>): { queuedAt: number; startedAt: number } {
  return { queuedAt: job.timestamp, startedAt: job.processedOn ?? job.timestamp };
}

function abandonedError(): PermanentJobError {
  return new PermanentJobError(new GatewayError('upstream_timeout', 'The request was abandoned before its job finished.'));
}

/**
 * Runs a job's work with the rules every processor shares: refuse work nobody waits for
 * (past the deadline or cancelled by the web), abort the provider call when that happens
 * mid-job, store the output under the request id before completing and publish it to the
 * waiting web in the same round trip (the web gets it from the message, or reads the stored
 * copy when a message was missed or too large to carry it), and turn errors into retryable or unrecoverable BullMQ failures that carry the
 * GatewayError for the web. Nothing is charged here; see `runMeteredJob`.
 */
export async function runJob(job: Job<AnyJobData>, ctx: ProcessorContext, work: JobWorkFn): Promise<JobSummary> {
  // The job's span continues the request's trace across the queue (context carried in the job).
  const attributes = { 'messaging.system': 'bullmq', 'messaging.destination.name': job.queueName, 'farebox.request_id': job.data.requestId, 'gen_ai.request.model': job.data.model.id };
  return inRemoteSpan(`process ${job.queueName}`, job.data.trace, attributes, () => runJobUntraced(job, ctx, work), 'consumer');
}

async function runJobUntraced(job: Job<AnyJobData>, ctx: ProcessorContext, work: JobWorkFn): Promise<JobSummary> {
  const { requestId, deadline } = job.data;
  // The routes this run tries: in its result when it answers, in its failure when it does not.
  const attempts = new AttemptList();
  const controller = new AbortController();
  const untilDeadline = deadline - Date.now();
  let abandoned = untilDeadline <= 0;
  const deadlineTimer = setTimeout(() => {
    abandoned = true;
    controller.abort(new Error('job deadline passed'));
  }, Math.max(0, untilDeadline));
  const checkCancelled = (): void => {
    void ctx.store.isCancelled(requestId).then(
      (cancelled) => {
        if (!cancelled) return;
        abandoned = true;
        controller.abort(new Error('job cancelled'));
      },
      () => undefined,
    );
  };
  const watch = setInterval(checkCancelled, ctx.cancelPollMs ?? 500);
  try {
    if (abandoned) throw abandonedError();
    // Checked beside the work rather than before it: a cancelled job is aborted a round trip
    // later, and the store below refuses its output atomically whatever the timing.
    checkCancelled();
    const done = await work(controller.signal, attempts);
    if (abandoned) throw abandonedError();
    const timing = { ...timingOf(job), finishedAt: Date.now() };
    const stored = await ctx.store.putResult(
      { head: { queue: job.queueName as QueueName, id: requestId, timing }, replyTo: job.data.replyTo },
      done.result,
      Math.max(0, deadline - Date.now()) + RESULT_GRACE_MS,
    );
    if (!stored) throw abandonedError();
    return done.summary;
  } catch (thrown) {
    // A cancelled or timed-out job has nobody waiting: retrying would only burn upstream money;
    // a slow failure is answered now rather than tried again (see retryFits).
    const retry = !abandoned && retryFits({ queuedAt: job.timestamp, startedAt: timingOf(job).startedAt, deadline }, Date.now());
    const failure = jobFailure(thrown, retry, attempts);
    ctx.log.info({ request_id: requestId, queue: job.queueName, attempt: job.attemptsMade + 1, reason: failure.message }, 'job attempt failed');
    // A failure BullMQ will not retry ends the web's wait now; one it retries is not news.
    if (failure instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) {
      const head = { queue: job.queueName as QueueName, id: requestId, timing: { ...timingOf(job), finishedAt: Date.now() } };
      void ctx.store.publishFailure({ head, replyTo: job.data.replyTo }, failure.message).catch(() => undefined);
    }
    throw failure;
  } finally {
    clearTimeout(deadlineTimer);
    clearInterval(watch);
  }
}
