import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { classifyError } from '../../errors/classify-error.js';
import { errorHeaders, serializeError } from '../../errors/serialize.js';
import type { GatewayState } from '../state.js';

/**
 * Catches everything below it and answers with the one error shape. Unknown errors are
 * logged with their details and hidden from the client. Once headers are sent (streams),
 * the stream itself reports errors, so nothing is written here.
 */
export function errorBoundary(log: Logger): Middleware<GatewayState> {
  return async function errorBoundaryMiddleware(ctx, next) {
    try {
      await next();
    } catch (thrown) {
      const err = classifyError(thrown);
      if (err.status >= 500) log.error({ err: err.cause ?? err, request_id: ctx.state.requestId, code: err.code }, err.message);
      if (ctx.headerSent || !ctx.writable) return;
      ctx.status = err.status;
      ctx.set(errorHeaders(err));
      ctx.body = serializeError(err);
    }
  };
}
