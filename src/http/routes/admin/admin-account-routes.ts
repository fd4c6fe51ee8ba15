import { Router } from '@koa/router';
import {
  type AccountService,
  createKeySchema,
  type KeyService,
  sharedLimitsSchema,
  toAccountDetailView,
  toAccountView,
  toKeyView,
  toSharedLimits,
} from '../../../accounts/index.js';
import { parseUsdAmount } from '../../../billing/index.js';
import { type LedgerCredits, type LedgerReads, toLedgerView } from '../../../ledger/index.js';
import type { GatewayContext, GatewayState } from '../../state.js';
import { validate } from '../../../platform/validation/index.js';
import { createAccountSchema, creditSchema, ledgerQuerySchema } from './admin-schemas.js';

/** What the account routes of the operator API use. */
export interface AdminAccountDeps {
  readonly accounts: AccountService;
  readonly credits: LedgerCredits;
  readonly keys: KeyService;
  readonly ledgerReads: LedgerReads;
}

function accountId(ctx: GatewayContext): string {
  return String((ctx as GatewayContext & { params: Record<string, string> }).params.account_id);
}

/** Operator routes on accounts: create, read, set limits, credit, ledger (and its chain check), mint keys. */
export function adminAccountRoutes(deps: AdminAccountDeps): Router<GatewayState> {
  const router = new Router<GatewayState>();

  router.post('/accounts', async (ctx) => {
    const body = validate(createAccountSchema, ctx.request.body ?? {});
    ctx.status = 201;
    ctx.body = { data: toAccountView(await deps.accounts.create(body.name ?? null)) };
  });

  router.get('/accounts/:account_id', async (ctx) => {
    ctx.body = { data: toAccountDetailView(await deps.accounts.get(accountId(ctx))) };
  });

  for (const [path, kind] of [['topups', 'topup'], ['grants', 'grant']] as const) {
    router.post(`/accounts/:account_id/${path}`, async (ctx) => {
      const body = validate(creditSchema, ctx.request.body);
      const amount = parseUsdAmount(body.amount_usd, 'amount_usd');
      const result = await deps.credits.credit(accountId(ctx), kind, amount, body.reference);
      ctx.status = result.created ? 201 : 200;
      ctx.body = { data: { entry: toLedgerView(result.entry), account: toAccountView(result.account) } };
    });
  }

  // Replaces the account's limits across all its keys; `{}` removes them.
  router.put('/accounts/:account_id/limits', async (ctx) => {
    const body = validate(sharedLimitsSchema, ctx.request.body ?? {});
    ctx.body = { data: toAccountDetailView(await deps.accounts.setLimits(accountId(ctx), toSharedLimits(body))) };
  });

  router.get('/accounts/:account_id/ledger', async (ctx) => {
    const query = validate(ledgerQuerySchema, ctx.query);
    const id = accountId(ctx);
    await deps.accounts.get(id);
    const page = await deps.ledgerReads.list(id, query.limit, query.cursor);
    ctx.body = { data: page.entries.map(toLedgerView), next_cursor: page.nextCursor };
  });

  router.get('/accounts/:account_id/ledger/verify', async (ctx) => {
    const id = accountId(ctx);
    await deps.accounts.get(id);
    ctx.body = { data: await deps.ledgerReads.verify(id) };
  });

  router.post('/accounts/:account_id/keys', async (ctx) => {
    const body = validate(createKeySchema, ctx.request.body);
    const account = await deps.accounts.get(accountId(ctx));
    const minted = await deps.keys.mint(account._id, body);
    ctx.status = 201;
    ctx.body = { data: toKeyView(minted.doc), key: minted.raw };
  });

  return router;
}
