import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { classifyError, errorHeaders, serializeError } from '../../platform/errors/index.js';
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
      if (err.status >= 500 && !clientLeft(ctx)) log.error({ err: err.cause ?? err, request_id: ctx.state.requestId, code: err.code }, err.message);
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
