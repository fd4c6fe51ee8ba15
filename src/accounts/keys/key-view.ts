import { toUsdNumber } from '../../billing/index.js';
import type { KeyDoc, KeyLimits } from './key-types.js';
import { sharedLimitsView } from './shared-limits.js';

function capsView(limits: KeyLimits) {
  const caps = limits.spend_cap;
  if (!caps) return undefined;
  return Object.fromEntries(Object.entries(caps).map(([k, v]) => [k, toUsdNumber(v as bigint)]));
}

/** Limits as clients see them (USD numbers; absent limits omitted). */
export function toLimitsView(limits: KeyLimits) {
  return {
    ...(limits.spend_cap ? { spend_cap_usd: capsView(limits) } : {}),
    ...(limits.rpm !== undefined ? { rpm: limits.rpm } : {}),
    ...(limits.tpm !== undefined ? { tpm: limits.tpm } : {}),
    ...(limits.concurrent_streams !== undefined ? { concurrent_streams: limits.concurrent_streams } : {}),
    ...(limits.models ? { models: limits.models } : {}),
    ...(limits.max_cost_per_request !== undefined ? { max_cost_per_request: toUsdNumber(limits.max_cost_per_request) } : {}),
    ...(limits.end_user_limits ? { end_user_limits: sharedLimitsView(limits.end_user_limits) } : {}),
    ...(limits.cache_ttl_seconds !== undefined ? { cache_ttl_seconds: limits.cache_ttl_seconds } : {}),
  };
}

/** A key as shown to operators and management keys: never the secret or its hash. */
export function toKeyView(k: KeyDoc) {
  return {
    key_id: k._id,
    account_id: k.account_id,
    name: k.name,
    label: k.label,
    role: k.role,
    disabled: k.disabled,
    expires_at: k.expires_at ? k.expires_at.toISOString() : null,
    limits: toLimitsView(k.limits),
    spend_usd: toUsdNumber(k.spend),
    created_at: k.created_at.toISOString(),
  };
}
