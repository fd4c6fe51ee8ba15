import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import type { Deps } from '../deps.js';
import type { GatewayState } from '../http/state.js';
import { consolePageRoutes } from './console-page-routes.js';
import { consoleSessions } from './session-resolver.js';
import { sessionRoutes } from './session-routes.js';
import { SessionStore } from './session-store.js';

type ConsoleDeps = Pick<Deps, 'redis' | 'config' | 'keyAuth'>;

/** The console: its page and assets, and sign-in/sign-out at `/console/session`. */
export function consoleRoutes(deps: ConsoleDeps): Router<GatewayState> {
  const router = new Router<GatewayState>();
  for (const child of [consolePageRoutes(), sessionRoutes(deps)]) router.use(child.routes(), child.allowedMethods());
  return router;
}

/** The app-wide middleware that offers a request's console session to the auth guards. */
export function consoleSessionMiddleware(deps: ConsoleDeps): Middleware<GatewayState> {
  return consoleSessions({ sessions: new SessionStore(deps.redis, deps.config.redisPrefix), keyAuth: deps.keyAuth, adminToken: deps.config.adminToken });
}
