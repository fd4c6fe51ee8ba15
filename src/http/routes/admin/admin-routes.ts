import { Router } from '@koa/router';
import type { Deps } from '../../../deps.js';
import { adminAuth } from '../../middleware/admin-auth.js';
import type { GatewayState } from '../../state.js';
import { keyCrudRoutes } from '../keys/key-crud-routes.js';
import { adminAccountListRoutes } from './admin-account-list-routes.js';
import { adminAccountRoutes } from './admin-account-routes.js';
import { adminModelRoutes } from './admin-model-routes.js';
import { adminRequestRoutes } from './admin-request-routes.js';

/** The operator API under `/v1/admin`, guarded by ADMIN_TOKEN. */
export function adminRoutes(deps: Deps): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/v1/admin' });
  router.use(adminAuth(deps.config.adminToken));
  for (const child of [adminAccountRoutes(deps), adminAccountListRoutes(deps), keyCrudRoutes(deps, () => undefined), adminModelRoutes(deps), adminRequestRoutes(deps)]) {
    router.use(child.routes(), child.allowedMethods());
  }
  return router;
}
