import type { Middleware } from 'koa';
import { type Admission, type RateInfo, rateInfoOf } from '../../admission/index.js';
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

/**
 * Like {@link rateLimit} for routes whose handler passes `ctx.state.rate` to admission, which
 * runs the check inside its own script (one Redis round trip per request instead of two).
 * When the request fails before admission ran the check (bad body, unknown model, allowlist,
 * provider), the check runs here before the error is answered, so a rate-limited key still
 * gets its 429 first and every request is counted, as with {@link rateLimit}.
 */
export function deferredRateLimit(admission: Pick<Admission, 'deferRate'>): Middleware<GatewayState> {
  return async function deferredRateLimitMiddleware(ctx, next) {
    const rate = admission.deferRate(requireKey(ctx), (info) => setRateHeaders(ctx, info));
    ctx.state.rate = rate;
    try {
      await next();
    } catch (err) {
      await rate.runAlone();
      throw err;
    }
    // A handler that answered without admission still counts its request. (Most requests ran
    // it inside admission: no call and no wait for them.)
    if (rate.pending) await rate.runAlone();
  };
}
