import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { GatewayError } from '../../errors/gateway-error.js';
import type { GatewayState } from '../state.js';
import { bearerToken } from './authenticate.js';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * Guards operator routes with ADMIN_TOKEN. Both sides are hashed first so the comparison
 * is constant-time whatever the lengths.
 */
export function adminAuth(adminToken: string | undefined): Middleware<GatewayState> {
  const expected = adminToken ? digest(adminToken) : undefined;
  return async function adminAuthMiddleware(ctx, next) {
    const given = bearerToken(ctx.get('authorization') || undefined);
    if (!expected || !given || !timingSafeEqual(digest(given), expected)) {
      throw new GatewayError('invalid_api_key', 'Invalid operator token.');
    }
    await next();
  };
}
