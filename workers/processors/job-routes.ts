import { inSpan } from '../../src/platform/tracing/tracing.js';
import type { Logger } from 'pino';
import { judgeFailure } from '../../src/chat/failover-rules.js';
import { isGatewayError } from '../../src/platform/errors/gateway-error.js';
import { jobRoutes } from '../../src/queue/job-model.js';
import type { JobModel } from '../../src/queue/job-types.js';

/** What answered a job: the value, and the route (as a job model) with its index. */
export interface RoutedAnswer<T> {
  readonly value: T;
  readonly route: JobModel;
  /** Index in `model.routes`; undefined when the model has one route. */
  readonly index: number | undefined;
}

/**
 * Runs a job's upstream call on its routes in order, with the chat path's failover rules: a
 * route that cannot serve (provider disabled) or fails before answering in a way another route
 * may not share (429, 5xx, 529, timeouts, resets, refused keys) moves on to the next; anything
 * else, or the last route's failure, is the job's. No output was produced by a failed attempt,
 * so nothing of it is metered.
 */
export async function onJobRoutes<C, T>(
  model: JobModel,
  log: Logger,
  lookup: (provider: string) => C,
  call: (capability: C, route: JobModel) => Promise<T>,
  signal: AbortSignal,
): Promise<RoutedAnswer<T>> {
  const routes = jobRoutes(model);
  for (const [i, route] of routes.entries()) {
    const last = i === routes.length - 1;
    let capability: C;
    try {
      capability = lookup(route.provider);
    } catch (err) {
      if (last) throw err;
      continue;
    }
    try {
      const value = await inSpan(`upstream ${route.provider}`, { 'gen_ai.provider.name': route.provider, 'gen_ai.request.model': route.upstreamModel, 'farebox.attempt': i + 1 }, () => call(capability, route), 'client');
      return { value, route, index: model.routes === undefined ? undefined : i };
    } catch (err) {
      if (last || signal.aborted || !isGatewayError(err) || !judgeFailure(err).failover) throw err;
      log.info({ model: model.id, provider: route.provider, cause: judgeFailure(err).cause }, 'job route failed; trying the next');
    }
  }
  throw new Error('a job model has at least one route');
}
