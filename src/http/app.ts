import { Router } from '@koa/router';
import Koa from 'koa';
import { consoleSessionMiddleware } from './routes/console/console-routes.js';
import type { Deps } from '../deps.js';
import { errorHeaders, GatewayError, serializeError } from '../platform/errors/index.js';
import { edge } from './middleware/edge.js';
import { errorBoundary } from './middleware/error-boundary.js';
import { jsonBody } from './middleware/json-body.js';
import { requireContentType } from './middleware/require-content-type.js';
import { staticRoutes } from './middleware/static-routes.js';
import { routeFamilies, type RouteOptions } from './routes/route-families.js';
import type { GatewayState } from './state.js';
import { traceRequests } from './middleware/trace-requests.js';
import { keepAlive } from './middleware/keep-alive.js';
import { KeepAliveClock } from './middleware/kept-answer.js';

/**
 * What a process may add to its deps: a live-usage reader and document-fetch overrides, and
 * extra routers mounted after every family (tests).
 */
export interface AppExtensions extends RouteOptions {
  routers?: Router<GatewayState>[];
}

/**
 * Unread body bytes discarded before an error is answered, so ordinary oversized bodies get
 * their 413 rather than a reset; past this the connection is closed instead. Reading costs
 * bandwidth, not memory.
 */
const MIN_DRAIN_BYTES = 64 * 1024 * 1024;

/** Paths that take multipart/form-data; every other body is JSON. */
const MULTIPART_PATHS: ReadonlySet<string> = new Set(['/v1/images/edits']);

/**
 * Answers 404 without throwing, so the routers' `allowedMethods` (which look at the status
 * on the way back) can still turn a known path with the wrong method into 405.
 */
function notFound(): Koa.Middleware<GatewayState> {
  return async function notFoundMiddleware(ctx) {
    const err = new GatewayError('not_found', `No route for ${ctx.method} ${ctx.path}`);
    ctx.status = err.status;
    ctx.set(errorHeaders(err));
    ctx.body = serializeError(err);
  };
}

/** Builds the Koa application (no listen), so tests can mount it on any server. */
export function createApp(deps: Deps, extensions: AppExtensions = {}): Koa<GatewayState> {
  const app = new Koa<GatewayState>({ proxy: true });
  app.silent = true;
  // Request id, record, CORS (when an Origin is sent), metrics and the access log in one frame.
  app.use(edge(deps));
  app.use(traceRequests(deps.requests));
  app.use(errorBoundary(deps.log, { drainBytes: Math.max(4 * deps.config.limits.jsonBodyBytes, MIN_DRAIN_BYTES) }));
  app.use(keepAlive(new KeepAliveClock(deps.config.keepAlive)));
  app.use(requireContentType({ multipartPaths: MULTIPART_PATHS }));
  app.use(jsonBody({ limitBytes: deps.config.limits.jsonBodyBytes }));
  app.use(consoleSessionMiddleware(deps));
  // Every route family, in the order route-families.ts lists them; then any extra routers.
  const routers = [...routeFamilies(deps, extensions), ...(extensions.routers ?? [])];
  for (const router of routers) {
    app.use(staticRoutes(router));
    app.use(
      router.allowedMethods({
        throw: true,
        methodNotAllowed: () => new GatewayError('method_not_allowed', 'Method not allowed for this route'),
        notImplemented: () => new GatewayError('method_not_allowed', 'Method not implemented'),
      }),
    );
  }
  app.use(notFound());
  return app;
}
