import { Router } from '@koa/router';
import type { KeyAuthenticator } from '../../../accounts/index.js';
import { authenticate } from '../../middleware/authenticate.js';
import { requireKey, type GatewayState } from '../../state.js';
import { keyCrudRoutes, ownKeysRoutes, type KeyCrudDeps } from './key-crud-routes.js';

/** What the management key routes use. */
export interface ManagementRouteDeps extends KeyCrudDeps {
  readonly keyAuth: KeyAuthenticator;
}

/** `/v1/keys`: management keys manage the keys of their own account. */
export function managementRoutes(deps: ManagementRouteDeps): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/v1' });
  const own = (ctx: Parameters<typeof requireKey>[0]) => requireKey(ctx).account_id;
  router.use(['/keys', '/keys/*rest'], authenticate(deps.keyAuth, ['management']));
  for (const child of [ownKeysRoutes(deps, own), keyCrudRoutes(deps, own)]) router.use(child.routes(), child.allowedMethods());
  return router;
}
