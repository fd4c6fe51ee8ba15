import type { FailureVerdict } from './failover-rules.js';
import type { RetryBudget } from './retry-budget.js';

/**
 * Failures worth one more try on the same route: a server error or overload the route may not
 * repeat. Not a silent route (`timeout`: a second wait only doubles the first), nor a reset,
 * which may be an answer cut mid-body that the vendor already produced: the next route
 * restarts it instead.
 */
const TRANSIENT: ReadonlySet<string> = new Set(['status_500', 'status_502', 'status_503', 'status_504', 'status_529']);

/**
 * Default for how slow a failure may be and still be tried again on the same route, ms
 * (`ROUTE_QUICK_FAILURE_MS`): a route that took long to fail would make the request wait as
 * long again, and the next route may answer at once. A vendor's error comes back in well under
 * a second, but on a loaded gateway its answer also waits for the event loop (a 500 measured
 * 1.3 s on a loaded two-core machine, over 1.8 s on a slower one), so the limit sits well above
 * both; a slow generation that fails takes tens of seconds.
 */
export const QUICK_FAILURE_MS = 5_000;

/** Pause before the one retry of a transient failure, ms (with up to half as much again of jitter, so retries do not arrive in step). */
export const TRANSIENT_RETRY_DELAY_MS = 200;

/** What decides whether a failed attempt is tried again on its own route. */
export interface FailedAttempt {
  readonly verdict: FailureVerdict;
  /** How long the attempt took to fail, ms. */
  readonly tookMs: number;
  /** How long the route asked to be left alone from now, ms (0 when it asked nothing). */
  readonly waitMs: number;
}

/**
 * How long to wait before trying a failed route once more, or undefined when the request moves
 * on to the next route instead. A route that named its wait (`Retry-After`) is waited for when
 * the wait fits in the request's retry budget; a transient failure that took no longer than
 * `quickFailureMs` is retried after a short pause when that fits; anything else moves on. A
 * 429 that named no wait moves on rather than guess one; an answer every route would give (a
 * 400) never reaches here.
 */
export function sameRouteDelay(failed: FailedAttempt, budget: RetryBudget, quickFailureMs = QUICK_FAILURE_MS): number | undefined {
  const { verdict } = failed;
  if (!verdict.failover) return undefined;
  if (verdict.retryAfterStated === true) return budget.fits(failed.waitMs) ? failed.waitMs : undefined;
  if (!TRANSIENT.has(verdict.cause) || failed.tookMs > quickFailureMs) return undefined;
  const delay = Math.max(failed.waitMs, TRANSIENT_RETRY_DELAY_MS * (1 + Math.random() / 2));
  return budget.fits(delay) ? delay : undefined;
}
