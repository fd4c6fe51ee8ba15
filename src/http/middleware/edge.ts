import cors from '@koa/cors';
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { flatLineLogger } from '../../platform/log/index.js';
import type { Metrics } from '../../metrics/index.js';
import type { RequestRecorder } from '../../ledger/index.js';
import type { GatewayState } from '../state.js';
import { logAccess } from './access-log.js';
import { EXPOSED_HEADERS } from './cors-headers.js';
import { countRequest } from './metrics-middleware.js';
import { openRecord } from './record-requests.js';
import { assignRequestId } from './request-id.js';

/** What the edge needs: the access log, the request counters and the request records. */
export interface EdgeDeps {
  readonly log: Logger;
  readonly metrics: Metrics;
  readonly requests: RequestRecorder;
}

/**
 * The outermost middleware, one function instead of one per concern so a request pays for a
 * single frame: it assigns the request id (before anything can fail), opens the record of an
 * inference request, runs CORS only for requests that carry an `Origin` (preflights included;
 * a request without one is outside CORS), and once the app is done counts the request, closes
 * its record when the response has gone out and writes the access log line.
 */
export function edge(deps: EdgeDeps): Middleware<GatewayState> {
  // No allowHeaders list: the preflight's requested headers are allowed (bearer or x-api-key auth,
  // SDK telemetry headers such as x-stainless-* or anthropic-version). Credentials are never
  // allowed cross-origin, so the console's cookie only ever works from its own page.
  // The access line's fields are flat and known: the wildcard redaction paths would only cost.
  const accessLog = flatLineLogger(deps.log);
  const corsMiddleware = cors({ origin: '*', exposeHeaders: [...EXPOSED_HEADERS], maxAge: 600 });
  return async function edgeMiddleware(ctx, next) {
    const started = performance.now();
    assignRequestId(ctx);
    const closeRecord = openRecord(deps.requests, ctx);
    try {
      if (ctx.headers.origin === undefined) await next();
      else await corsMiddleware(ctx, next);
    } finally {
      closeRecord?.();
      countRequest(deps.metrics, ctx);
      logAccess(accessLog, ctx, started);
    }
  };
}
