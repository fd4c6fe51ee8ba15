import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import type { GatewayState } from '../../state.js';
import { consolePageRoutes } from './console-page-routes.js';
import { consoleSessions } from './session-resolver.js';
import { sessionRoutes } from './session-routes.js';
import { SessionStore } from '../../../console/index.js';
import type { Redis } from '../../../platform/redis/index.js';
import type { Config } from '../../../platform/config/index.js';
import type { KeyAuthenticator } from '../../../accounts/index.js';

/** What the console routes use. */
export interface ConsoleDeps {
  readonly redis: Redis;
  readonly config: Config;
  readonly keyAuth: KeyAuthenticator;
}

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
