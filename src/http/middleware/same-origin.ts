import type { ParameterizedContext } from 'koa';
import { GatewayError } from '../../platform/errors/index.js';

const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Cross-site request forgery guard for cookie-authenticated requests: an unsafe method must
 * carry an `Origin` equal to the request's own origin. SameSite=Strict already keeps the cookie
 * off cross-site requests; this also covers same-site sibling hosts and old browsers.
 */
export function requireSameOrigin(ctx: ParameterizedContext): void {
  if (SAFE_METHODS.has(ctx.method)) return;
  const origin = ctx.get('origin');
  // Koa 3's `ctx.origin` is the Origin header itself; the request's own origin is built here.
  if (!origin || origin !== `${ctx.protocol}://${ctx.host}`) {
    throw new GatewayError('permission_denied', 'A console request that changes something must come from the console page (same Origin).');
  }
}
