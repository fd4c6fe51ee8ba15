import type { Logger } from 'pino';
import { isGatewayError } from '../../src/platform/errors/index.js';
import { type JobModel, jobRoutes } from '../../src/queue/index.js';
import type { AttemptRecord } from '../../src/ledger/index.js';
import { BeforeFirstByteError, routeKey, runRoutes, type AttemptList, type RouteHealth, type RouteTarget } from '../../src/routing/index.js';

/** What answered a job: the value, the route (as a job model) with its index, and every attempt. */
export interface RoutedAnswer<T> {
  readonly value: T;
  readonly route: JobModel;
  /** Index in `model.routes`; undefined when the model has one route. */
  readonly index: number | undefined;
  /** Every route tried or skipped, in order, as the request's record lists them. */
  readonly attempts: AttemptRecord[];
}

/** What job failover needs from the worker process: its routes' health, the retry limits and a log. */
export interface JobRouting {
  readonly log: Logger;
  /** Health of routes in this worker (breaker, Retry-After); absent: no breaker. */
  readonly routeHealth?: RouteHealth;
  /** Most time one job waits out upstream `Retry-After`s, ms. */
  readonly routeRetryBudgetMs?: number;
  /** Slowest 5xx still tried again on its route, ms. */
  readonly routeQuickFailureMs?: number;
}

/** The job run being routed: its request id (for logs), its abort signal and where its attempts go. */
export interface RoutedJob {
  readonly requestId: string;
  readonly signal: AbortSignal;
  readonly attempts: AttemptList;
}

/** One route of a job, ready to call. */
interface JobTarget<C> extends RouteTarget {
  readonly route: JobModel;
  readonly index: number | undefined;
  readonly capability: C;
}

/**
 * The job's routes whose provider can serve it now; the first refusal when none can (a
 * route whose provider is disabled is passed over, as chat does with its candidates).
 */
function servingRoutes<C>(model: JobModel, lookup: (provider: string) => C): Array<JobTarget<C>> {
  const targets: Array<JobTarget<C>> = [];
  const refusals: unknown[] = [];
  for (const [i, route] of jobRoutes(model).entries()) {
    try {
      const capability = lookup(route.provider);
      const key = routeKey(model.id, route.provider, route.upstreamModel);
      targets.push({ key, providerId: route.provider, entryId: model.id, upstreamModel: route.upstreamModel, route, index: model.routes === undefined ? undefined : i, capability });
    } catch (err) {
      refusals.push(err);
    }
  }
  if (targets.length === 0) throw refusals[0];
  return targets;
}

/**
 * Runs a job's upstream call on its routes with the one failover policy chat uses (see
 * runRoutes): a route whose breaker is open or whose `Retry-After` has not passed is skipped;
 * a failure another route may not share (429, 5xx, 529, timeouts, resets, refused keys)
 * moves on to the next; anything else, or the last route's failure, is the job's. No output
 * was produced by a failed attempt, so nothing of it is metered. The attempts go into
 * `request.attempts` and travel back to the web in the job's result or failure, for the
 * request's record.
 */
export async function onJobRoutes<C, T>(
  model: JobModel,
  routing: JobRouting,
  request: RoutedJob,
  lookup: (provider: string) => C,
  call: (capability: C, route: JobModel) => Promise<T>,
): Promise<RoutedAnswer<T>> {
  const { attempts } = request;
  return runRoutes(routing, servingRoutes(model, lookup), request, async (target, firstByte) => {
    let value: T;
    try {
      value = await call(target.capability, target.route);
    } catch (err) {
      // A job's answer is whole or nothing: every upstream failure is before its first byte.
      throw isGatewayError(err) ? new BeforeFirstByteError(err) : err;
    }
    firstByte();
    return { value, route: target.route, index: target.index, attempts: attempts.attempts };
  });
}
