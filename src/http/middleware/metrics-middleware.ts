import type { Middleware } from 'koa';
import type { GatewayState } from '../state.js';
import type { Metrics } from '../../platform/metrics/metrics.js';

/** Route label for requests no router matched, so unknown paths do not create series. */
const UNMATCHED = 'unmatched';

/**
 * Counts every request by method, matched route pattern (never the raw path, whose ids
 * would make series unbounded) and final status. Sits outside the error boundary so error
 * statuses are counted as sent.
 */
export function metricsMiddleware(metrics: Metrics): Middleware<GatewayState> {
  return async function metricsMiddlewareFn(ctx, next) {
    try {
      await next();
    } finally {
      const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      metrics.request(ctx.method, typeof route === 'string' ? route : UNMATCHED, ctx.status);
    }
  };
}
