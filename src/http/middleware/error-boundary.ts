import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { classifyError, errorHeaders, serializeError, type GatewayError } from '../../platform/errors/index.js';
import { levelOf } from './access-log.js';
import { drainRemainder } from './drain-request.js';
import { clientLeft } from './client-closed.js';
import type { GatewayContext, GatewayState } from '../state.js';

/** Bounds of the error boundary. */
export interface ErrorBoundaryOptions {
  /** Most bytes of an unread request body read and discarded before an error is answered. */
  drainBytes: number;
}

/**
 * Headers every response keeps, errors included: request id, CORS and rate-limit figures, and
 * `Connection: close` when the request body was left unread.
 */
const KEPT_HEADER = /^(x-service-request-id|x-request-id|access-control-.*|vary|x-ratelimit-.*|connection)$/i;

/**
 * Drops whatever the failed handler had set (content type, caching, partial results' headers),
 * as Koa's own `onerror` does, but keeps the headers that belong on every response.
 */
function clearHeaders(ctx: GatewayContext): void {
  for (const name of ctx.res.getHeaderNames()) {
    if (!KEPT_HEADER.test(name)) ctx.res.removeHeader(name);
  }
}

/**
 * A refusal with Retry-After (503) is logged at warn with its cause's message only: a store
 * failover refuses every request for seconds, and a stack per request would bury the cause.
 * Any other 5xx is a fault, logged at error with its stack.
 */
function logFailure(log: Logger, err: GatewayError, requestId: string | undefined): void {
  if (levelOf(err.status) === 'warn') {
    const cause = err.cause instanceof Error ? err.cause.message : undefined;
    log.warn({ request_id: requestId, code: err.code, cause }, err.message);
  } else log.error({ err: err.cause ?? err, request_id: requestId, code: err.code }, err.message);
}

/**
 * Catches everything below it and answers with the one error shape. Unknown errors are
 * logged with their details and hidden from the client. The rest of an unread request body
 * is read first (within a bound), so a client that is still uploading gets the answer. Once headers are sent (streams),
 * the stream itself reports errors, so nothing is written here.
 */
export function errorBoundary(log: Logger, options: ErrorBoundaryOptions): Middleware<GatewayState> {
  return async function errorBoundaryMiddleware(ctx, next) {
    try {
      await next();
    } catch (thrown) {
      const err = classifyError(thrown);
      // A client that left is not a failure of the gateway: the access line reports it (499).
      // Shed load is counted and in the access line; a log line each would add to the overload.
      if (err.status >= 500 && err.code !== 'overloaded' && !clientLeft(ctx)) logFailure(log, err, ctx.state.requestId);
      if (ctx.headerSent || !ctx.writable) return;
      // A client still sending its body would see a reset instead of this answer.
      const drained = await drainRemainder(ctx.req, options.drainBytes);
      clearHeaders(ctx);
      if (!drained) ctx.set('Connection', 'close');
      ctx.status = err.status;
      ctx.set(errorHeaders(err));
      ctx.body = serializeError(err);
    }
  };
}
