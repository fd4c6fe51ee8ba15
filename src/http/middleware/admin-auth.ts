import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { requireSameOrigin } from './same-origin.js';
import { GatewayError } from '../../platform/errors/index.js';
import type { GatewayContext, GatewayState } from '../state.js';
import { bearerToken } from './authenticate.js';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** True when a request without an Authorization header carries an operator console session. */
export async function hasOperatorSession(ctx: GatewayContext): Promise<boolean> {
  const identity = await ctx.state.consoleSession?.();
  return identity?.mode === 'operator';
}

/**
 * Guards operator routes with ADMIN_TOKEN, as a bearer header or, without one, an operator
 * console session (whose unsafe requests must also be same-origin). Both sides of the token
 * comparison are hashed first so it is constant-time whatever the lengths.
 */
export function adminAuth(adminToken: string | undefined): Middleware<GatewayState> {
  const expected = adminToken ? digest(adminToken) : undefined;
  return async function adminAuthMiddleware(ctx, next) {
    const header = ctx.get('authorization');
    if (!header && expected && (await hasOperatorSession(ctx))) {
      requireSameOrigin(ctx);
      await next();
      return;
    }
    const given = bearerToken(header || undefined);
    if (!expected || !given || !timingSafeEqual(digest(given), expected)) {
      throw new GatewayError('invalid_api_key', 'Invalid operator token.');
    }
    await next();
  };
}
