import type { Middleware } from 'koa';
import { requireSameOrigin } from './same-origin.js';
import { GatewayError } from '../../platform/errors/index.js';
import type { KeyAuthenticator, KeyDoc, KeyRole } from '../../accounts/index.js';
import type { GatewayContext, GatewayState } from '../state.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const USUAL_PREFIX = 'Bearer ';

/** True when every character from `start` on is printable ASCII other than a space. */
function visibleAsciiFrom(text: string, start: number): boolean {
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c <= 32 || c >= 127) return false;
  }
  return true;
}

/** Extracts the bearer token of an Authorization header. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  // The usual spelling (one space, a token of visible ASCII) is sliced out with no match object
  // made for it, on every request; any other goes through the expression that defines the form.
  if (header.length > USUAL_PREFIX.length && header.startsWith(USUAL_PREFIX) && visibleAsciiFrom(header, USUAL_PREFIX.length)) return header.slice(USUAL_PREFIX.length);
  return BEARER.exec(header)?.[1];
}

const ROLE_ERRORS: Record<KeyRole, GatewayError> = {
  inference: new GatewayError('model_not_allowed', 'Management keys cannot call models; use an inference key.'),
  management: new GatewayError('permission_denied', 'This endpoint needs a management key.'),
};

/** The management key of an account console session, for requests without an Authorization header. */
async function sessionKey(ctx: GatewayContext): Promise<KeyDoc | undefined> {
  if (ctx.get('authorization')) return undefined;
  const identity = await ctx.state.consoleSession?.();
  if (identity?.mode !== 'account') return undefined;
  requireSameOrigin(ctx);
  return identity.key;
}

/**
 * Authenticates the bearer key and, if `roles` is given, requires one of them. Routes open to
 * management keys also accept an account console session (inference routes never do).
 */
export function authenticate(keys: KeyAuthenticator, roles?: readonly KeyRole[]): Middleware<GatewayState> {
  const sessionsAllowed = !roles || roles.includes('management');
  return async function authenticateMiddleware(ctx, next) {
    const fromSession = sessionsAllowed ? await sessionKey(ctx) : undefined;
    const found = fromSession ?? keys.authenticate(ctx.get('authorization') || undefined, ctx.req.socket, bearerToken);
    // A cached key is answered at once: no turn of the microtask queue for it.
    const key = found instanceof Promise ? await found : found;
    if (roles && !roles.includes(key.role)) throw ROLE_ERRORS[roles[0] ?? 'inference'];
    ctx.state.key = key;
    // Returned, not awaited: nothing follows, and a waiting frame would live as long as the response (a stream's too).
    return next();
  };
}
