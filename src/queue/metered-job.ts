import type { AdmissionTicket } from '../admission/index.js';
import type { AttemptRecord, ChargeOutcome } from '../ledger/index.js';
import type { AttemptSink } from '../routing/index.js';
import type { JobQueue, RunOptions } from './job-queue.js';
import { FailedJobError } from './job-error.js';
import { jobRouteModel, pricedModel } from './job-model.js';
import type { JobDataMap, JobResultMap } from './job-types.js';
import type { PayloadInput } from './payload-store.js';
import type { QueueName } from './queue-names.js';

/** One job to run for an admitted request. */
export interface MeteredJob<Q extends QueueName> {
  queue: Q;
  data: JobDataMap[Q];
  inputs: readonly PayloadInput[];
  /** Where the routes the worker tried are recorded (the request's record draft). */
  attempts?: AttemptSink | undefined;
}

/** A delivered job: its result and what the ledger recorded for it. */
export interface MeteredResult<Q extends QueueName> {
  result: JobResultMap[Q];
  cost: bigint;
  charge: ChargeOutcome;
}

/**
 * Runs a queued job for an admitted request and settles its cost. Who charges, and why:
 * the worker only meters (it stores the output with its units and cost); the web charges,
 * through the admission ticket, once it holds the result and is about to deliver it.
 * - Charged at most once: the ticket's settle writes the ledger idempotently by request id
 *   (= job id), and only the one web request that owns the ticket settles. A job retried
 *   after a provider error, or re-run after its worker was killed (stalled-job recovery),
 *   produces outputs but never a charge of its own.
 * - Never charged for an undelivered result: on timeout, client disconnect or job failure
 *   the ticket is released without a charge and the job is abandoned; a result that arrives
 *   later is discarded by TTL. A worker dying mid-job cannot leave a charge behind.
 * - Durable before reported: settle resolves after the ledger transaction commits, and only
 *   then does the caller write `usage.cost` to the client.
 * The upstream cost of abandoned work is the operator's, never the client's.
 */
export async function runMeteredJob<Q extends QueueName>(
  jobs: JobQueue,
  ticket: AdmissionTicket,
  job: MeteredJob<Q>,
  options: RunOptions,
): Promise<MeteredResult<Q>> {
  const inputNames = job.inputs.map((input) => input.name);
  let result: JobResultMap[Q];
  try {
    result = await jobs.run(job.queue, job.data, job.inputs, options);
    if (options.signal?.aborted) throw options.signal.reason ?? new Error('client disconnected');
  } catch (err) {
    if (err instanceof FailedJobError) recordAttempts(job.attempts, err.attempts);
    await ticket.release();
    void jobs.discard(job.data.requestId, inputNames).catch(() => undefined);
    throw err;
  }
  recordAttempts(job.attempts, result.attempts);
  const cost = BigInt(result.cost);
  // Billed lines and price version are those of the route that answered.
  const priced = result.route === undefined ? undefined : pricedModel(jobRouteModel(job.data.model, result.route));
  const charge = await ticket.settle(cost, result.units, priced, result.lines === undefined ? undefined : { lines: result.lines });
  void jobs.discard(job.data.requestId, inputNames).catch(() => undefined);
  // What was billed (never above the hold), which may be less than the job metered.
  return { result, cost: charge.cost, charge };
}

/** Copies the worker's attempts into the request's record, naming the route that answered. */
function recordAttempts(sink: AttemptSink | undefined, attempts: readonly AttemptRecord[] | undefined): void {
  if (sink === undefined || attempts === undefined) return;
  for (const attempt of attempts) sink.attempted(attempt);
  const answered = attempts.findLast((attempt) => attempt.outcome === 'answered');
  if (answered !== undefined) sink.answeredBy(answered.model, answered.provider);
}
