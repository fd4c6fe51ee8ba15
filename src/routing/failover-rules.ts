import type { GatewayError } from '../platform/errors/index.js';
import { UpstreamRateLimit } from '../providers/index.js';

/** How a failed attempt is judged: its cause, and whether another route may answer instead. */
export interface FailureVerdict {
  /** `connect`, `reset`, `timeout`, `status_<n>`, `insufficient_quota`, `keys_exhausted`, or the error code. */
  readonly cause: string;
  readonly failover: boolean;
  /** The upstream's HTTP status, when it answered one. */
  readonly status: number | undefined;
  /** How long the route asked to be left alone (`Retry-After`), ms. */
  readonly retryAfterMs: number | undefined;
  /** True when the route named that wait itself (a `Retry-After` header), rather than the default second. */
  readonly retryAfterStated?: boolean;
  /** False when the failure was the request's own on this route (too long for its context): no mark against its health. */
  readonly routeFault?: boolean;
}

/**
 * Statuses that say "this route, now" rather than "this request": timeouts, conflicts, rate
 * limits, server errors and overload (529). Also 401/403 (this route's key), 402 and 404
 * (this vendor's account or model name), which another vendor may not share.
 */
const FAILOVER_STATUSES = new Set([401, 402, 403, 404, 408, 409, 429, 500, 501, 502, 503, 504, 529]);

/** The vendor code of a request longer than the model's context window. */
const CONTEXT_CODE = 'context_length_exceeded';

/** How vendors word it when they send no such code (Anthropic: "prompt is too long"). */
const CONTEXT_WORDING = /context length|context window|maximum context|prompt is too long/i;

/**
 * Whether a 400 says the request does not fit the model's context: another route (another
 * model of `models`, or a deployment with a larger window) may still take it.
 */
function exceedsContext(err: GatewayError): boolean {
  const upstream = err.upstream;
  if (upstream?.code === CONTEXT_CODE) return true;
  return upstream?.status === 400 && CONTEXT_WORDING.test(err.message);
}

/**
 * Judges an attempt that failed before its first byte. Transport faults and the statuses
 * above move on to the next route, and so does a 400 that says the request exceeds the
 * model's context; anything every route would answer alike (other 400s, 413, 422 and other
 * 4xx) is answered at once; a failure that is not the upstream's (the client left,
 * a bug) never fails over.
 */
export function judgeFailure(err: GatewayError): FailureVerdict {
  const upstream = err.upstream;
  const retryAfterMs = err.code === 'rate_limited' && err.retryAfterSeconds !== undefined ? err.retryAfterSeconds * 1000 : undefined;
  if (upstream === undefined) return { cause: err.code, failover: false, status: undefined, retryAfterMs: undefined };
  const status = upstream.status;
  if (upstream.transport !== undefined) return { cause: upstream.transport, failover: true, status, retryAfterMs };
  if (upstream.code === 'keys_exhausted' || upstream.code === 'insufficient_quota') return { cause: upstream.code, failover: true, status, retryAfterMs };
  if (exceedsContext(err)) return { cause: CONTEXT_CODE, failover: true, status, retryAfterMs, routeFault: false };
  if (status === undefined) return { cause: err.code, failover: false, status, retryAfterMs };
  const stated = err instanceof UpstreamRateLimit && err.stated;
  return { cause: `status_${status}`, failover: FAILOVER_STATUSES.has(status), status, retryAfterMs, ...(stated ? { retryAfterStated: true } : {}) };
}
