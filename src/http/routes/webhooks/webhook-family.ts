import { Router } from '@koa/router';
import type { KeyAuthenticator } from '../../../accounts/index.js';
import { adminAuth } from '../../middleware/admin-auth.js';
import { authenticate } from '../../middleware/authenticate.js';
import { requireKey, type GatewayContext, type GatewayState } from '../../state.js';
import { webhookAccountRoutes, webhookItemRoutes, type WebhookRouteDeps } from './webhook-routes.js';

/** What the webhook routes of both audiences use. */
export interface WebhookFamilyDeps extends WebhookRouteDeps {
  readonly keyAuth: KeyAuthenticator;
  readonly config: { readonly adminToken?: string };
}

function accountParam(ctx: GatewayContext): string {
  return String((ctx as GatewayContext & { params: Record<string, string> }).params.account_id);
}

/**
 * Webhooks for management keys (`/v1/webhooks…`, `/v1/webhook-settings`, own account) and the
 * operator (`/v1/admin/accounts/:account_id/webhooks`, `…/webhook-settings`, `/v1/admin/webhooks/…`).
 */
export function webhookRoutes(deps: WebhookFamilyDeps): Router<GatewayState> {
  const root = new Router<GatewayState>();
  const own = new Router<GatewayState>({ prefix: '/v1' });
  const ownAccount = (ctx: GatewayContext) => requireKey(ctx).account_id;
  own.use(['/webhooks', '/webhooks/*rest', '/webhook-settings'], authenticate(deps.keyAuth, ['management']));
  for (const child of [webhookAccountRoutes(deps, { list: '/webhooks', settings: '/webhook-settings' }, ownAccount), webhookItemRoutes(deps, ownAccount)]) {
    own.use(child.routes(), child.allowedMethods());
  }
  const admin = new Router<GatewayState>({ prefix: '/v1/admin' });
  admin.use(adminAuth(deps.config.adminToken));
  const paths = { list: '/accounts/:account_id/webhooks', settings: '/accounts/:account_id/webhook-settings' };
  for (const child of [webhookAccountRoutes(deps, paths, accountParam), webhookItemRoutes(deps, () => undefined)]) {
    admin.use(child.routes(), child.allowedMethods());
  }
  for (const child of [own, admin]) root.use(child.routes(), child.allowedMethods());
  return root;
}
