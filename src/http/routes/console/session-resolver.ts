import { timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { GatewayError } from '../../../platform/errors/index.js';
import type { GatewayState } from '../../state.js';
import type { KeyAuthenticator } from '../../../accounts/index.js';
import { type ConsoleIdentity, operatorTokenHash, type SessionRecord, type SessionStore } from '../../../console/index.js';
import { sessionIdOf } from './session-cookie.js';

/** What resolving a session needs. */
export interface SessionResolverDeps {
  sessions: SessionStore;
  keyAuth: KeyAuthenticator;
  adminToken: string | undefined;
}

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Turns a stored record into an identity, or undefined when it no longer holds: an operator
 * session ends when ADMIN_TOKEN changes; an account session when its management key is
 * disabled, expired, deleted or rotated (the stored hash no longer resolves).
 */
export async function resolveRecord(record: SessionRecord, deps: SessionResolverDeps): Promise<ConsoleIdentity | undefined> {
  if (record.mode === 'operator') {
    return deps.adminToken !== undefined && sameHash(record.token_hash, operatorTokenHash(deps.adminToken)) ? { mode: 'operator' } : undefined;
  }
  try {
    const key = await deps.keyAuth.authenticateHash(record.key_hash);
    return key._id === record.key_id && key.role === 'management' ? { mode: 'account', key } : undefined;
  } catch (err) {
    if (err instanceof GatewayError && err.code === 'invalid_api_key') return undefined;
    throw err;
  }
}

/**
 * Offers the request's console session to the auth middleware: only when the request carries
 * the cookie and no Authorization header, and only read from Redis when a guard asks.
 */
export function consoleSessions(deps: SessionResolverDeps): Middleware<GatewayState> {
  return async function consoleSessionsMiddleware(ctx, next) {
    const id = ctx.get('authorization') ? undefined : sessionIdOf(ctx);
    if (id !== undefined) {
      let loaded: Promise<ConsoleIdentity | undefined> | undefined;
      ctx.state.consoleSession = () => {
        loaded ??= deps.sessions.read(id).then(async (record) => {
          const identity = record && (await resolveRecord(record, deps));
          if (record && !identity) await deps.sessions.delete(id);
          return identity;
        });
        return loaded;
      };
    }
    // Returned, not awaited: nothing follows, and a waiting frame would live as long as the response (a stream's too).
    return next();
  };
}
