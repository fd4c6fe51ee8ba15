import type { GatewayContext } from '../state.js';
import { newId } from '../../platform/util/index.js';

/** Header carrying the request id on every response. */
export const REQUEST_ID_HEADER = 'X-Service-Request-Id';
/** The same id under the name OpenAI SDKs read into `request_id`. */
export const REQUEST_ID_ALIAS = 'x-request-id';

/** Gives the request a fresh `req_…` id and sets both id headers; first thing the edge does. */
export function assignRequestId(ctx: GatewayContext): string {
  const id = newId('req');
  ctx.state.requestId = id;
  ctx.set(REQUEST_ID_HEADER, id);
  ctx.set(REQUEST_ID_ALIAS, id);
  return id;
}
