import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { GatewayError } from '../platform/errors/index.js';
import { startKeyTrail, stopKeyTrail } from '../providers/index.js';
import { inSpan } from '../platform/tracing/index.js';
import { AttemptLog, type AttemptSink } from './attempt-log.js';
import { BeforeFirstByteError } from './before-first-byte.js';
import { judgeFailure } from './failover-rules.js';
import type { RouteGate, RouteHealth } from './route-health.js';
import type { RouteTarget } from './route-target.js';
import { RetryBudget } from './retry-budget.js';

/** Counters of route attempts and skips (the process's route metrics). */
export interface RouteCounters {
  attempt(route: string, provider: string, seconds: number, cause: string | undefined): void;
  skip(route: string, provider: string, reason: string): void;
}

/** What the failover loop needs from its process: health of routes, the retry budget, metrics and a log. */
export interface RoutingDeps {
  readonly routeHealth?: RouteHealth;
  /** Most time one request waits out `Retry-After`s, ms. */
  readonly routeRetryBudgetMs?: number;
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
class Walk<R extends RouteTarget, T> {
  last: GatewayError | undefined;
  tried = 0;
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
      return undefined;
    } finally {
      stopKeyTrail(this.request.signal, trail);
    }
  }
}

/**
 * Runs a request over its routes in order until one gives its first byte. A route whose
 * breaker is open, or whose `Retry-After` has not passed, is skipped; a failure before the
 * first byte that another route may not share (see judgeFailure) moves on to the next route,
 * uncharged. When every route failed or waits, the routes waiting out `Retry-After` are tried
 * once more if that wait fits in the retry budget. After the first byte nothing is retried:
 * the answer (or its error) is the request's. Chat requests and image and OCR jobs all run
 * here, so they share one breaker policy and one form of attempt record.
 */
export async function runRoutes<R extends RouteTarget, T>(deps: RoutingDeps, routes: readonly R[], request: RoutedRequest, run: RouteRun<R, T>): Promise<T> {
  if (routes.length === 0) throw new Error('a request has at least one route');
  const walk = new Walk(deps, request, run);
  const waiting: R[] = [];
  for (const route of routes) {
    const gate = deps.routeHealth?.gate(route.key) ?? 'closed';
    if (gate === 'open' || gate === 'retry_after') {
      walk.skip(route, gate === 'open' ? 'circuit_open' : 'retry_after');
      if (gate === 'retry_after') waiting.push(route);
      continue;
    }
    const done = await walk.attempt(route, gate);
    if (done !== undefined) return done.value;
    if ((deps.routeHealth?.retryAt(route.key) ?? 0) > Date.now()) waiting.push(route);
  }
  const retried = await retryWaiting(deps, walk, waiting, request.signal);
  if (retried !== undefined) return retried.value;
  if (walk.last !== undefined) throw walk.last;
  // Every route was skipped (breaker open, or a Retry-After beyond the budget): rather than
  // refuse on stale health, probe the first route.
  const probe = await walk.attempt(routes[0] as R, 'closed');
  if (probe !== undefined) return probe.value;
  throw walk.last as unknown as GatewayError;
}

/** Waits out the soonest `Retry-After` that fits in the budget and tries that route again, in turn. */
async function retryWaiting<R extends RouteTarget, T>(deps: RoutingDeps, walk: Walk<R, T>, waiting: R[], signal: AbortSignal): Promise<{ value: T } | undefined> {
  const retryAt = (route: R): number => deps.routeHealth?.retryAt(route.key) ?? 0;
  const byTime = [...waiting].sort((a, b) => retryAt(a) - retryAt(b));
  for (const route of byTime) {
    const wait = retryAt(route) - Date.now();
    if (!walk.budget.fits(wait) || signal.aborted) return undefined;
    if (wait > 0) await sleep(wait, undefined, { signal }).catch(() => undefined);
    if (signal.aborted) return undefined;
    const done = await walk.attempt(route, 'closed');
    if (done !== undefined) return done;
  }
  return undefined;
}
