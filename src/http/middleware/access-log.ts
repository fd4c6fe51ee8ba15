import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import type { GatewayState } from '../state.js';

/** One log line per request, after it finished; never headers or bodies (they carry keys). */
export function accessLog(log: Logger): Middleware<GatewayState> {
  return async function accessLogMiddleware(ctx, next) {
    const started = performance.now();
    try {
      await next();
    } finally {
      const level = ctx.status >= 500 ? 'error' : 'info';
      if (log.isLevelEnabled(level)) {
        log[level]({
          request_id: ctx.state.requestId,
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          key_id: ctx.state.key?._id,
          ms: Math.round((performance.now() - started) * 10) / 10,
        });
      }
    }
  };
}
