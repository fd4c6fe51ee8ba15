import type { Middleware } from 'koa';
import { newId } from '../../platform/util/ids.js';
import type { GatewayState } from '../state.js';

/** Header carrying the request id on every response. */
export const REQUEST_ID_HEADER = 'X-Service-Request-Id';
/** The same id under the name OpenAI SDKs read into `request_id`. */
export const REQUEST_ID_ALIAS = 'x-request-id';

/** Assigns each request a fresh `req_…` id before anything else can fail. */
export function requestId(): Middleware<GatewayState> {
  return async function requestIdMiddleware(ctx, next) {
    ctx.state.requestId = newId('req');
    ctx.set(REQUEST_ID_HEADER, ctx.state.requestId);
    ctx.set(REQUEST_ID_ALIAS, ctx.state.requestId);
    await next();
  };
}
