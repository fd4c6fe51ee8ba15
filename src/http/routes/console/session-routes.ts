import { Router } from '@koa/router';
import { z } from 'zod';
import { GatewayError } from '../../../platform/errors/index.js';
import type { GatewayContext, GatewayState } from '../../state.js';
import { validate } from '../../../platform/validation/index.js';
import { type ConsoleIdentity, SessionStore, SignInLimiter, signInRecord } from '../../../console/index.js';
import { requireSameOrigin } from '../../middleware/same-origin.js';
import { clearSessionCookie, sessionIdOf, setSessionCookie } from './session-cookie.js';
import type { Redis } from '../../../platform/redis/index.js';
import type { Config } from '../../../platform/config/index.js';
import type { KeyAuthenticator } from '../../../accounts/index.js';

/** What the console sign-in routes use. */
export interface SessionRouteDeps {
  readonly redis: Redis;
  readonly config: Config;
  readonly keyAuth: KeyAuthenticator;
}

const signInSchema = z.strictObject({ token: z.string().min(1).max(512) });

function identityView(identity: ConsoleIdentity) {
  return identity.mode === 'operator'
    ? { mode: 'operator' as const }
    : { mode: 'account' as const, account_id: identity.key.account_id, key_id: identity.key._id, key_name: identity.key.name };
}

/** An Origin, when a browser sent one, must be this origin (no sign-in from another site's page). */
function sameOriginIfSent(ctx: GatewayContext): void {
  if (ctx.get('origin')) requireSameOrigin(ctx);
}

/**
 * `/console/session`: sign in with the operator token or a management key (POST), read who
 * the session is (GET), sign out (DELETE). The session id lives only in the cookie.
 */
export function sessionRoutes(deps: SessionRouteDeps): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/console' });
  const sessions = new SessionStore(deps.redis, deps.config.redisPrefix);
  const limiter = new SignInLimiter(deps.redis, deps.config.redisPrefix);

  router.post('/session', async (ctx) => {
    sameOriginIfSent(ctx);
    const { token } = validate(signInSchema, ctx.request.body ?? {});
    await limiter.check(ctx.ip);
    const record = await signInRecord(token, deps.config.adminToken, deps.keyAuth).catch(async (err: unknown) => {
      if (err instanceof GatewayError && err.status < 500) await limiter.fail(ctx.ip);
      throw err;
    });
    const previous = sessionIdOf(ctx);
    if (previous) await sessions.delete(previous);
    const session = await sessions.create(record);
    setSessionCookie(ctx, session.id, session.expiresAt);
    ctx.status = 201;
    ctx.body = {
      data: record.mode === 'operator'
        ? { mode: 'operator', expires_at: session.expiresAt.toISOString() }
        : { mode: 'account', account_id: record.account_id, key_id: record.key_id, expires_at: session.expiresAt.toISOString() },
    };
  });

  router.get('/session', async (ctx) => {
    const identity = await ctx.state.consoleSession?.();
    if (!identity) throw new GatewayError('invalid_api_key', 'Not signed in to the console.');
    ctx.body = { data: identityView(identity) };
  });

  router.delete('/session', async (ctx) => {
    const id = sessionIdOf(ctx);
    if (id) {
      requireSameOrigin(ctx);
      await sessions.delete(id);
    }
    clearSessionCookie(ctx);
    ctx.body = { data: { signed_out: true } };
  });

  return router;
}
