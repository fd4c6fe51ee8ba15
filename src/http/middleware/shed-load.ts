import type { Middleware } from 'koa';
import { GatewayError } from '../../platform/errors/index.js';
import type { OverloadGauge } from '../../platform/runtime/index.js';
import type { Metrics } from '../../metrics/index.js';
import type { GatewayState } from '../state.js';
import { clientLeft } from './client-closed.js';

/** The routes of new work: what a request there costs grows with load; everything else is cheap or already running. */
const NEW_WORK: ReadonlySet<string> = new Set([
  '/v1/chat/completions',
  '/v1/responses',
  '/v1/messages',
  '/v1/embeddings',
  '/v1/images/generations',
  '/v1/images/edits',
  '/v1/ocr',
]);

/** Seconds a shed client is asked to wait: the overload passes within a few turns of the loop, or the client's backoff grows. */
const RETRY_AFTER_SECONDS = 1;

/**
 * Sheds new work while the web is overloaded (see {@link OverloadGauge}): a request to a route
 * of new work is answered `503 overloaded` with `Retry-After` at once, before its body is read,
 * before admission and before any upstream call, so the requests already admitted keep their
 * latency instead of every request's growing until clients give up. A request whose client
 * already left is dropped here too: nobody would receive its answer, and its upstream call
 * would be paid for by nobody. Health, metrics and reads are never shed, and a running stream
 * is never cut (it counts as work in flight until it ends).
 */
export function shedLoad(gauge: OverloadGauge, metrics: Pick<Metrics, 'shed'>): Middleware<GatewayState> {
  return async function shedLoadMiddleware(ctx, next) {
    if (ctx.method !== 'POST' || !NEW_WORK.has(ctx.path)) return next();
    if (clientLeft(ctx)) {
      metrics.shed('client_left');
      return;
    }
    const reason = gauge.enter();
    if (reason !== undefined) {
      metrics.shed(reason);
      throw new GatewayError('overloaded', 'The gateway is overloaded; retry shortly.', { retryAfterSeconds: RETRY_AFTER_SECONDS });
    }
    try {
      await next();
    } finally {
      gauge.leave();
    }
  };
}
