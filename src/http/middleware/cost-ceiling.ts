import type { Middleware } from 'koa';
import { parseUsdAmount } from '../../billing/index.js';
import type { CeilingRegistry } from '../../quote/index.js';
import type { GatewayContext, GatewayState } from '../state.js';

/**
 * Reads a request's ceiling from the `X-Max-Cost` header or a JSON body's `max_cost` (USD),
 * removes the field from the body (it is the gateway's, never sent upstream) and registers it
 * for admission until the request ends (a handler may register one it reads later, e.g. from
 * a multipart form; it is cleared here too). The body field wins over the header.
 */
export function costCeiling(ceilings: CeilingRegistry): Middleware<GatewayState> {
  return async function costCeilingMiddleware(ctx, next) {
    const nano = readCeiling(ctx);
    if (nano !== undefined) ceilings.set(ctx.state.requestId, nano);
    try {
      await next();
    } finally {
      ceilings.clear(ctx.state.requestId);
    }
  };
}

/** The ceiling a request gives, nano-USD; a malformed one is a 400 naming `max_cost`. */
export function readCeiling(ctx: GatewayContext): bigint | undefined {
  return ceilingFrom(ctx.request.body, ctx.get('x-max-cost') || undefined);
}

/** The ceiling of a JSON body (its `max_cost`, removed from it) or else of the header value. */
export function ceilingFrom(body: unknown, header: string | undefined): bigint | undefined {
  let value: unknown = header;
  if (typeof body === 'object' && body !== null && !Array.isArray(body) && 'max_cost' in body) {
    value = (body as Record<string, unknown>).max_cost;
    delete (body as Record<string, unknown>).max_cost;
  }
  return value === undefined || value === null ? undefined : parseUsdAmount(value, 'max_cost');
}
