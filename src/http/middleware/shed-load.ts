import type { Middleware } from 'koa';
import { Counter, Gauge, type Registry } from 'prom-client';
import { GatewayError } from '../../platform/errors/index.js';
import type { OverloadGauge } from '../../platform/runtime/index.js';
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

/** The shedding series on `registry`, registered once however many apps a process builds on it. */
function shedMetrics(gauge: OverloadGauge, registry: Registry): Counter<'reason'> {
  const known = registry.getSingleMetric('farebox_requests_shed_total');
  if (known !== undefined) return known as Counter<'reason'>;
  new Gauge({
    name: 'farebox_requests_in_flight',
    help: 'Requests of new work in progress, streams included',
    registers: [registry],
    collect() {
      this.set(gauge.running);
    },
  });
  return new Counter({ name: 'farebox_requests_shed_total', help: 'Requests of new work answered 503 overloaded, or dropped because their client had left, by reason', labelNames: ['reason'], registers: [registry] });
}

/**
 * Sheds new work while the web is overloaded (see {@link OverloadGauge}): a request to a route
 * of new work is answered `503 overloaded` with `Retry-After` at once, before its body is read,
 * before admission and before any upstream call, so the requests already admitted keep their
 * latency instead of every request's growing until clients give up. A request whose client
 * already left is dropped here too: nobody would receive its answer, and its upstream call
 * would be paid for by nobody. Health, metrics and reads are never shed, and a running stream
 * is never cut (it counts as work in flight until it ends).
 */
export function shedLoad(gauge: OverloadGauge, registry: Registry): Middleware<GatewayState> {
  const shed = shedMetrics(gauge, registry);
  return async function shedLoadMiddleware(ctx, next) {
    if (ctx.method !== 'POST' || !NEW_WORK.has(ctx.path)) return next();
    if (clientLeft(ctx)) {
      shed.inc({ reason: 'client_left' });
      return;
    }
    const reason = gauge.enter();
    if (reason !== undefined) {
      shed.inc({ reason });
      throw new GatewayError('overloaded', 'The gateway is overloaded; retry shortly.', { retryAfterSeconds: RETRY_AFTER_SECONDS });
    }
    try {
      await next();
    } finally {
      gauge.leave();
    }
  };
}
