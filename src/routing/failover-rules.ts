import type { GatewayError } from '../platform/errors/index.js';

/** How a failed attempt is judged: its cause, and whether another route may answer instead. */
export interface FailureVerdict {
  /** `connect`, `reset`, `timeout`, `status_<n>`, `insufficient_quota`, `keys_exhausted`, or the error code. */
  readonly cause: string;
  readonly failover: boolean;
  /** The upstream's HTTP status, when it answered one. */
  readonly status: number | undefined;
  /** How long the route asked to be left alone (`Retry-After`), ms. */
  readonly retryAfterMs: number | undefined;
}

/**
 * Statuses that say "this route, now" rather than "this request": timeouts, conflicts, rate
 * limits, server errors and overload (529). Also 401/403 (this route's key), 402 and 404
 * (this vendor's account or model name), which another vendor may not share.
 */
const FAILOVER_STATUSES = new Set([401, 402, 403, 404, 408, 409, 429, 500, 501, 502, 503, 504, 529]);

/**
 * Judges an attempt that failed before its first byte. Transport faults and the statuses
 * above move on to the next route; anything every route would answer alike (400, 413, 422
 * and other 4xx) is answered at once; a failure that is not the upstream's (the client left,
 * a bug) never fails over.
 */
export function judgeFailure(err: GatewayError): FailureVerdict {
  const upstream = err.upstream;
  const retryAfterMs = err.code === 'rate_limited' && err.retryAfterSeconds !== undefined ? err.retryAfterSeconds * 1000 : undefined;
  if (upstream === undefined) return { cause: err.code, failover: false, status: undefined, retryAfterMs: undefined };
  const status = upstream.status;
  if (upstream.transport !== undefined) return { cause: upstream.transport, failover: true, status, retryAfterMs };
  if (upstream.code === 'keys_exhausted' || upstream.code === 'insufficient_quota') return { cause: upstream.code, failover: true, status, retryAfterMs };
  if (status === undefined) return { cause: err.code, failover: false, status, retryAfterMs };
  return { cause: `status_${status}`, failover: FAILOVER_STATUSES.has(status), status, retryAfterMs };
}
