import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { GatewayError } from '../platform/errors/index.js';
import { startKeyTrail, stopKeyTrail } from '../providers/index.js';
import { inSpan } from '../platform/tracing/index.js';
import { AttemptLog, type AttemptSink } from './attempt-log.js';
import { BeforeFirstByteError } from './before-first-byte.js';
import { judgeFailure, type FailureVerdict } from './failover-rules.js';
import type { RouteGate, RouteHealth } from './route-health.js';
import type { RouteTarget } from './route-target.js';
import { RetryBudget } from './retry-budget.js';
import { sameRouteDelay } from './same-route-retry.js';

/** Counters of route attempts and skips (the process's route metrics). */
export interface RouteCounters {
  attempt(route: string, provider: string, seconds: number, cause: string | undefined): void;
  skip(route: string, provider: string, reason: string): void;
}

/** What the failover loop needs from its process: health of routes, the retry budget, metrics and a log. */
export interface RoutingDeps {
  readonly routeHealth?: RouteHealth;
  /** Most time one request spends on retries (waits for `Retry-After`s, pauses before a retry), ms. */
  readonly routeRetryBudgetMs?: number;
  /** Slowest failure still tried again on its route, ms (see sameRouteDelay; default QUICK_FAILURE_MS). */
  readonly routeQuickFailureMs?: number;
  readonly metrics?: { readonly routes: RouteCounters };
  readonly log: Pick<Logger, 'info'>;
}

/** The request being routed: its id (for logs), its abort signal and where its attempts go. */
export interface RoutedRequest {
  readonly requestId: string;
  /** Also the signal its upstream calls carry: the keys they use are noted by it on each attempt's trail. */
  readonly signal: AbortSignal;
  readonly attempts?: AttemptSink | undefined;
}

/**
 * Runs the request on one route and resolves with its answer once complete. It calls
 * `firstByte` when the upstream's first byte arrives (the end of failover), and marks a
 * failure before it with BeforeFirstByteError; any other error is the request's.
 */
export type RouteRun<R, T> = (route: R, firstByte: () => void) => Promise<T>;

/** One request's walk over its routes: what was tried, and the last failure. */
export class Walk<R extends RouteTarget, T> {
  last: GatewayError | undefined;
  tried = 0;
  /** How the last attempt failed over, and how long it took (ms); undefined after an answer. */
  private failure: { verdict: FailureVerdict; tookMs: number } | undefined;
  readonly budget: RetryBudget;
  private readonly log: AttemptLog;

  constructor(
    private readonly deps: RoutingDeps,
    private readonly request: RoutedRequest,
    private readonly run: RouteRun<R, T>,
  ) {
    this.budget = new RetryBudget(deps.routeRetryBudgetMs);
    this.log = new AttemptLog(request.attempts);
  }

  skip(route: R, reason: string): void {
    this.deps.metrics?.routes.skip(route.key, route.providerId, reason);
    this.log.note(route, 'skipped', reason, null, 0);
  }

  /** Tries one route: its answer, or undefined when it failed over (the failure kept in `last`). */
  async attempt(route: R, gate: RouteGate): Promise<{ value: T } | undefined> {
    const { deps, log } = this;
    const key = route.key;
    const started = performance.now();
    let answered = false;
    // The keys this attempt's upstream calls use, found by the signal they carry.
    const trail = startKeyTrail(this.request.signal);
    const firstByte = (): void => {
      answered = true;
      const ms = performance.now() - started;
      deps.routeHealth?.succeeded(key, ms);
      deps.metrics?.routes.attempt(key, route.providerId, ms / 1000, undefined);
      log.refusedKeys(route, trail);
      log.note(route, 'answered', null, null, ms, trail.last());
      log.answered(route);
    };
    this.tried += 1;
    this.failure = undefined;
    try {
      const attributes = { 'gen_ai.provider.name': route.providerId, 'gen_ai.request.model': route.upstreamModel, 'farebox.attempt': this.tried };
      return { value: await inSpan(`upstream ${route.providerId}`, attributes, () => this.run(route, firstByte), 'client') };
    } catch (err) {
      if (answered || !(err instanceof BeforeFirstByteError)) {
        if (!answered && gate === 'trial') deps.routeHealth?.abandoned(key);
        throw err;
      }
      const verdict = judgeFailure(err.original);
      const ms = performance.now() - started;
      if (verdict.failover && verdict.routeFault !== false) deps.routeHealth?.failed(key, verdict.retryAfterMs);
      else if (gate === 'trial') deps.routeHealth?.abandoned(key);
      deps.metrics?.routes.attempt(key, route.providerId, ms / 1000, verdict.cause);
      log.refusedKeys(route, trail);
      log.note(route, 'failed', verdict.cause, verdict.status ?? null, ms, trail.last());
      if (!verdict.failover || this.request.signal.aborted) throw err.original;
      deps.log.info({ request_id: this.request.requestId, route: key, cause: verdict.cause }, 'route failed before the first byte; trying the next');
      this.last = err.original;
      this.failure = { verdict, tookMs: ms };
      return undefined;
    } finally {
      stopKeyTrail(this.request.signal, trail);
    }
  }

  /**
   * Tries a route, and when its failure deserves it (see sameRouteDelay) once more after the
   * wait it named or a short pause, unless its breaker opened or another `Retry-After` came
   * in meanwhile. Undefined when the request should move on to the next route.
   */
  async tryRoute(route: R, gate: RouteGate): Promise<{ value: T } | undefined> {
    const done = await this.attempt(route, gate);
    if (done !== undefined || this.failure === undefined) return done;
    const health = this.deps.routeHealth;
    const waitMs = health === undefined ? (this.failure.verdict.retryAfterMs ?? 0) : Math.max(0, health.retryAt(route.key) - Date.now());
    const delay = sameRouteDelay({ ...this.failure, waitMs }, this.budget, this.deps.routeQuickFailureMs);
    if (delay === undefined || !(await this.pause(route, delay))) return undefined;
    const again = health?.gate(route.key) ?? 'closed';
    if (again === 'open' || again === 'retry_after') return undefined;
    this.deps.log.info({ request_id: this.request.requestId, route: route.key, cause: this.failure.verdict.cause, delay_ms: Math.round(delay) }, 'trying the route once more');
    return this.attempt(route, again);
  }

  /**
   * Waits `ms`, then out whatever is left of the route's `Retry-After` while it fits in the
   * budget (a timer may fire a little before the wall clock reaches it). False when the wait
   * did not fit or the request ended meanwhile.
   */
  private async pause(route: R, ms: number): Promise<boolean> {
    const { signal } = this.request;
    for (let left = ms; left > 0; left = (this.deps.routeHealth?.retryAt(route.key) ?? 0) - Date.now() + 1) {
      if (signal.aborted || !this.budget.fits(left)) return false;
      await sleep(left, undefined, { signal }).catch(() => undefined);
    }
    return !signal.aborted;
  }
}
