import { Router } from '@koa/router';
import { toUsdNumber } from '../../../billing/money.js';
import type { Deps } from '../../../deps.js';
import { authenticate } from '../../middleware/authenticate.js';
import type { KeyDoc } from '../../../keys/key-types.js';
import { requireKey, type GatewayState } from '../../state.js';
import { keyInfo, type KeyLiveUsage } from './key-info.js';

/** Reads live usage of a key (in-flight holds, requests this minute) from admission state. */
export type LiveUsageReader = (key: KeyDoc) => Promise<KeyLiveUsage>;

const NO_LIVE_USAGE: LiveUsageReader = async () => ({ heldUsd: 0n, requestsThisMinute: 0 });

/** `GET /v1/key` and `GET /v1/credits` for inference and management keys. */
export function accountRoutes(
  deps: Pick<Deps, 'c' | 'clock' | 'keyAuth' | 'accounts'>,
  liveUsage: LiveUsageReader = NO_LIVE_USAGE,
): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/v1' });
  const auth = authenticate(deps.keyAuth);
  router.get('/key', auth, async (ctx) => {
    const key = requireKey(ctx);
    const [account, live] = await Promise.all([deps.accounts.get(key.account_id), liveUsage(key)]);
    ctx.body = { data: await keyInfo(deps.c, deps.clock, key, account, live) };
  });
  router.get('/credits', auth, async (ctx) => {
    const account = await deps.accounts.get(requireKey(ctx).account_id);
    ctx.body = { data: { balance_usd: toUsdNumber(account.balance), free_tier: account.free_tier } };
  });
  return router;
}
