import type { Middleware } from 'koa';
import { GatewayError } from '../../errors/gateway-error.js';
import type { KeyAuthenticator } from '../../keys/key-auth.js';
import type { KeyRole } from '../../keys/key-types.js';
import type { GatewayState } from '../state.js';

/** Extracts the bearer token of an Authorization header. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

const ROLE_ERRORS: Record<KeyRole, GatewayError> = {
  inference: new GatewayError('model_not_allowed', 'Management keys cannot call models; use an inference key.'),
  management: new GatewayError('permission_denied', 'This endpoint needs a management key.'),
};

/** Authenticates the bearer key and, if `roles` is given, requires one of them. */
export function authenticate(keys: KeyAuthenticator, roles?: readonly KeyRole[]): Middleware<GatewayState> {
  return async function authenticateMiddleware(ctx, next) {
    const key = await keys.authenticate(bearerToken(ctx.get('authorization') || undefined));
    if (roles && !roles.includes(key.role)) throw ROLE_ERRORS[roles[0] ?? 'inference'];
    ctx.state.key = key;
    await next();
  };
}
