import type { Middleware } from 'koa';
import type { Admission, RateInfo } from '../../limits/admission-types.js';
import { rateInfoOf } from '../../limits/rate-check.js';
import { requireKey, type GatewayContext, type GatewayState } from '../state.js';

function setRateHeaders(ctx: GatewayContext, info: RateInfo | undefined): void {
  if (!info || info.unlimited) return;
  ctx.set('X-RateLimit-Limit', String(info.limit));
  ctx.set('X-RateLimit-Remaining', String(info.remaining));
  ctx.set('X-RateLimit-Reset', String(info.resetAt));
}

/**
 * Counts the request against the key's RPM (and the free-tier account limits) right after
 * `authenticate`, and reports the figures in `X-RateLimit-*` headers, on 429s too (where
 * the error carries `Retry-After`).
 */
export function rateLimit(admission: Pick<Admission, 'checkRate'>): Middleware<GatewayState> {
  return async function rateLimitMiddleware(ctx, next) {
    let info: RateInfo;
    try {
      info = await admission.checkRate(requireKey(ctx));
    } catch (err) {
      setRateHeaders(ctx, rateInfoOf(err));
      throw err;
    }
    setRateHeaders(ctx, info);
    await next();
  };
}
