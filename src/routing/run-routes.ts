import { setTimeout as sleep } from 'node:timers/promises';
import type { GatewayError } from '../platform/errors/index.js';
import type { RouteTarget } from './route-target.js';
import { type RouteRun, type RoutedRequest, type RoutingDeps, Walk } from './route-walk.js';

export type { RouteCounters, RouteRun, RoutedRequest, RoutingDeps } from './route-walk.js';

/**
 * Runs a request over its routes in order until one gives its first byte. A route whose
 * breaker is open, or whose `Retry-After` has not passed, is skipped; a failure before the
 * first byte that another route may not share (see judgeFailure) moves on to the next route,
 * uncharged, after one more try on the same route where the failure deserves it (a stated
 * `Retry-After` within the retry budget, a quick 5xx or reset; see sameRouteDelay). When every
 * route failed or waits, the routes waiting out `Retry-After` are tried once more if that wait
 * fits in the retry budget. After the first byte nothing is retried:
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
    const done = await walk.tryRoute(route, gate);
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
