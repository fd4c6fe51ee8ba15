import { Router } from '@koa/router';
import { type AccountService, type KeyService, toAccountView, toKeyView } from '../../../accounts/index.js';
import type { GatewayContext, GatewayState } from '../../state.js';
import { validate } from '../../../platform/validation/index.js';
import { accountListQuerySchema } from './admin-schemas.js';

/** What the operator's account listing uses. */
export interface AdminAccountListDeps {
  readonly accounts: AccountService;
  readonly keys: KeyService;
}

function accountId(ctx: GatewayContext): string {
  return String((ctx as GatewayContext & { params: Record<string, string> }).params.account_id);
}

/** Operator listings: accounts (with balance and free-tier state) and one account's keys. */
export function adminAccountListRoutes(deps: AdminAccountListDeps): Router<GatewayState> {
  const router = new Router<GatewayState>();

  router.get('/accounts', async (ctx) => {
    const query = validate(accountListQuerySchema, ctx.query);
    const page = await deps.accounts.list(query.limit, query.cursor, query.q || undefined);
    ctx.body = { data: page.accounts.map(toAccountView), next_cursor: page.nextCursor };
  });

  router.get('/accounts/:account_id/keys', async (ctx) => {
    const account = await deps.accounts.get(accountId(ctx));
    ctx.body = { data: (await deps.keys.list(account._id)).map(toKeyView) };
  });

  return router;
}
