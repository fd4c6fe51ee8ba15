import type { Middleware } from 'koa';
import { newId } from '../../util/ids.js';
import type { GatewayState } from '../state.js';

/** Header carrying the request id on every response. */
export const REQUEST_ID_HEADER = 'X-Service-Request-Id';

/** Assigns each request a fresh `req_…` id before anything else can fail. */
export function requestId(): Middleware<GatewayState> {
  return async function requestIdMiddleware(ctx, next) {
    ctx.state.requestId = newId('req');
    ctx.set(REQUEST_ID_HEADER, ctx.state.requestId);
    await next();
  };
}
