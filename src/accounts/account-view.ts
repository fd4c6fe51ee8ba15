import { toUsdNumber } from '../billing/index.js';
import { sharedLimitsView } from './keys/shared-limits.js';
import type { AccountDoc } from './account-types.js';

/** The operator's view of an account. */
export function toAccountView(a: AccountDoc) {
  return {
    account_id: a._id,
    name: a.name,
    balance_usd: toUsdNumber(a.balance),
    free_tier: a.free_tier,
    created_at: a.created_at.toISOString(),
  };
}

/** The operator's detailed view, with spend totals. */
export function toAccountDetailView(a: AccountDoc) {
  return {
    ...toAccountView(a),
    topped_up_usd: toUsdNumber(a.topped_up),
    granted_usd: toUsdNumber(a.granted),
    charged_usd: toUsdNumber(a.charged),
    absorbed_usd: toUsdNumber(a.absorbed),
    limits: sharedLimitsView(a.limits ?? {}),
  };
}
