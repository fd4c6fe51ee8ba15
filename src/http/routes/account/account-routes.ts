import { Router } from '@koa/router';
import { toUsdNumber } from '../../../billing/index.js';
import { authenticate } from '../../middleware/authenticate.js';
import type { AccountService, KeyAuthenticator, KeyDoc, KeyLiveUsage, KeyReads } from '../../../accounts/index.js';
import { requireKey, type GatewayState } from '../../state.js';
import { END_USER_HEADER } from '../../../ledger/index.js';
import { endUserInvalid, MAX_END_USER_LENGTH } from '../../../admission/index.js';

/** What the account routes of a key use. */
export interface AccountRouteDeps {
  readonly keyReads: KeyReads;
  readonly keyAuth: KeyAuthenticator;
  readonly accounts: AccountService;
}

/** Reads live usage of a key (in-flight holds, requests and tokens this minute; its account's, an end user's) from admission state. */
export type LiveUsageReader = (key: KeyDoc, endUser?: string) => Promise<KeyLiveUsage>;

const NO_LIVE_USAGE: LiveUsageReader = async () => ({ heldUsd: 0n, requestsThisMinute: 0 });

/** `GET /v1/key` and `GET /v1/credits` for inference and management keys. */
export function accountRoutes(
  deps: AccountRouteDeps,
  liveUsage: LiveUsageReader = NO_LIVE_USAGE,
): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/v1' });
  const auth = authenticate(deps.keyAuth);
  router.get('/key', auth, async (ctx) => {
    const key = requireKey(ctx);
    // The calling end user, named as on inference (header), or as a query parameter.
    const named = ctx.get(END_USER_HEADER) || (typeof ctx.query.end_user === 'string' ? ctx.query.end_user : '');
    if (named.length > MAX_END_USER_LENGTH) throw endUserInvalid('end_user');
    const [account, live] = await Promise.all([deps.accounts.get(key.account_id), liveUsage(key, named === '' ? undefined : named)]);
    ctx.body = { data: await deps.keyReads.info(key, account, live) };
  });
  router.get('/credits', auth, async (ctx) => {
    const account = await deps.accounts.get(requireKey(ctx).account_id);
    ctx.body = { data: { balance_usd: toUsdNumber(account.balance), free_tier: account.free_tier } };
  });
  return router;
}
