import { Router } from '@koa/router';
import type { Deps } from '../../../deps.js';
import { authenticate } from '../../middleware/authenticate.js';
import { requireKey, type GatewayState } from '../../state.js';
import { keyCrudRoutes, ownKeysRoutes } from './key-crud-routes.js';

/** `/v1/keys`: management keys manage the keys of their own account. */
export function managementRoutes(deps: Deps): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/v1' });
  const own = (ctx: Parameters<typeof requireKey>[0]) => requireKey(ctx).account_id;
  router.use(['/keys', '/keys/*rest'], authenticate(deps.keyAuth, ['management']));
  for (const child of [ownKeysRoutes(deps, own), keyCrudRoutes(deps, own)]) router.use(child.routes(), child.allowedMethods());
  return router;
}
