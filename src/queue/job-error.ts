import { ERROR_TABLE, type ErrorCode, GatewayError } from '../platform/errors/index.js';
import type { AttemptRecord } from '../ledger/index.js';

/** Marks a BullMQ failure reason written by our processors (anything else came from BullMQ). */
const MARKER = 'farebox-job-error:';

/** Codes worth another attempt: the provider or a store may answer next time. */
const TRANSIENT: ReadonlySet<ErrorCode> = new Set(['upstream_error', 'upstream_timeout', 'rate_limited', 'service_unavailable']);

/** Whether a job failing with this error should be retried. */
export function isTransient(err: GatewayError): boolean {
  return TRANSIENT.has(err.code);
}

/**
 * Encodes a GatewayError as an Error message. BullMQ keeps only a failure's message (as
 * `failedReason`), so code, message, param and Retry-After travel inside it and the web
 * rebuilds the same GatewayError the worker saw.
 */
export function encodeJobError(err: GatewayError, attempts?: readonly AttemptRecord[]): string {
  const routes = attempts === undefined || attempts.length === 0 ? {} : { attempts };
  return MARKER + JSON.stringify({ code: err.code, message: err.message, param: err.param, retryAfter: err.retryAfterSeconds, ...routes });
}

/** Whether a BullMQ failure reason was written by our processors (else BullMQ wrote it). */
export function isJobErrorReason(reason: string): boolean {
  return reason.startsWith(MARKER);
}

/** A failed job's error as the worker saw it, with the routes it tried (for the request's record). */
export class FailedJobError extends GatewayError {
  constructor(
    error: GatewayError,
    readonly attempts: readonly AttemptRecord[],
  ) {
    super(error.code, error.message, { param: error.param, ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }) });
  }
}

const OUTCOMES: ReadonlySet<unknown> = new Set(['answered', 'failed', 'skipped']);

function isAttempt(value: unknown): value is AttemptRecord {
  if (typeof value !== 'object' || value === null) return false;
  const a = value as Record<string, unknown>;
  return typeof a.model === 'string' && typeof a.provider === 'string' && typeof a.upstream_model === 'string' && OUTCOMES.has(a.outcome) && typeof a.latency_ms === 'number';
}

/** The attempts a failure reason carries, when every one is well formed. */
function attemptsOf(value: unknown): AttemptRecord[] | undefined {
  return Array.isArray(value) && value.length > 0 && value.every(isAttempt) ? value : undefined;
}

function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_TABLE, value);
}

/**
 * Rebuilds the GatewayError of a failed job. Reasons BullMQ wrote itself (a job that stalled
 * too often, a lost lock) become a 502, since the work was attempted and did not finish.
 */
export function decodeJobError(failedReason: string | undefined): GatewayError {
  if (failedReason?.startsWith(MARKER)) {
    try {
      const parsed = JSON.parse(failedReason.slice(MARKER.length)) as Record<string, unknown>;
      if (isErrorCode(parsed.code) && typeof parsed.message === 'string') {
        const error = new GatewayError(parsed.code, parsed.message, {
          param: typeof parsed.param === 'string' ? parsed.param : null,
          ...(typeof parsed.retryAfter === 'number' ? { retryAfterSeconds: parsed.retryAfter } : {}),
        });
        const attempts = attemptsOf(parsed.attempts);
        return attempts === undefined ? error : new FailedJobError(error, attempts);
      }
    } catch {
      // fall through to the generic error
    }
  }
  return new GatewayError('upstream_error', 'The job failed before it could finish; retry the request.', {
    cause: failedReason,
  });
}
