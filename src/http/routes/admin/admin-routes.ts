import { Router } from '@koa/router';
import { adminAuth } from '../../middleware/admin-auth.js';
import type { GatewayState } from '../../state.js';
import { keyCrudRoutes, type KeyCrudDeps } from '../keys/key-crud-routes.js';
import { adminAccountListRoutes, type AdminAccountListDeps } from './admin-account-list-routes.js';
import { adminAccountRoutes, type AdminAccountDeps } from './admin-account-routes.js';
import { adminModelRoutes, type AdminModelDeps } from './admin-model-routes.js';
import { adminRequestRoutes, type AdminRequestDeps } from './admin-request-routes.js';
import type { RouteHealth } from '../../../routing/index.js';

/** What the operator API uses: its parts' deps and the operator token. */
export interface AdminDeps extends AdminAccountDeps, AdminAccountListDeps, KeyCrudDeps, AdminModelDeps, AdminRequestDeps {
  readonly config: { readonly adminToken?: string };
  readonly routeHealth?: RouteHealth;
}

/** The operator API under `/v1/admin`, guarded by ADMIN_TOKEN. */
export function adminRoutes(deps: AdminDeps): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/v1/admin' });
  router.use(adminAuth(deps.config.adminToken));
  for (const child of [adminAccountRoutes(deps), adminAccountListRoutes(deps), keyCrudRoutes(deps, () => undefined), adminModelRoutes(deps), adminRequestRoutes(deps)]) {
    router.use(child.routes(), child.allowedMethods());
  }
  return router;
}
