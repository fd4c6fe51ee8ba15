import { toUsdNumber } from '../billing/money.js';
import type { LedgerDoc } from './ledger-types.js';

/** A ledger entry as operators see it (USD numbers). */
export function toLedgerView(e: LedgerDoc) {
  return {
    id: e._id,
    kind: e.kind,
    credit_usd: toUsdNumber(e.credit),
    cost_usd: toUsdNumber(e.cost),
    charged_usd: toUsdNumber(e.charged),
    absorbed_usd: toUsdNumber(e.absorbed),
    key_id: e.key_id,
    model: e.model,
    reference: e.reference,
    units: e.units,
    created_at: e.created_at.toISOString(),
  };
}
