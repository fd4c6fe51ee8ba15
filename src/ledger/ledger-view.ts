import { toUsdNumber } from '../billing/index.js';
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
    // Metered cost beyond the hold: never billed, absorbed by the operator.
    ...(e.over_limit !== undefined ? { over_limit_usd: toUsdNumber(e.over_limit), absorbed_reason: e.absorbed_reason ?? null } : {}),
    ...(e.cost_details !== undefined ? { cost_details: e.cost_details } : {}),
    ...(e.price_version !== undefined ? { price_version: e.price_version } : {}),
    key_id: e.key_id,
    model: e.model,
    reference: e.reference,
    units: e.units,
    created_at: e.created_at.toISOString(),
    seq: e.seq ?? null,
    prev_hash: e.prev_hash ?? null,
    hash: e.hash ?? null,
  };
}
