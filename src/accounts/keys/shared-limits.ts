import { toUsdNumber } from '../../billing/index.js';
import type { SharedLimitsInput } from './limits-schema.js';
import type { SharedLimits, WindowCaps } from './key-types.js';

/** Caps as stored, without the windows left out. */
export function definedCaps<T extends object>(input: Readonly<Record<string, bigint | undefined>>): T {
  const caps: Record<string, bigint> = {};
  for (const [k, v] of Object.entries(input)) if (v !== undefined) caps[k] = v;
  return caps as T;
}

/** Shared limits (account, end user) as stored, from their validated input. */
export function toSharedLimits(input: SharedLimitsInput): SharedLimits {
  const limits: SharedLimits = {};
  if (input.spend_cap_usd) limits.spend_cap = definedCaps<WindowCaps>(input.spend_cap_usd);
  if (input.rpm !== undefined) limits.rpm = input.rpm;
  if (input.tpm !== undefined) limits.tpm = input.tpm;
  return limits;
}

/** Shared limits as clients see them (USD numbers; absent limits omitted). */
export function sharedLimitsView(limits: SharedLimits) {
  const caps = limits.spend_cap;
  return {
    ...(caps ? { spend_cap_usd: Object.fromEntries(Object.entries(caps).map(([k, v]) => [k, toUsdNumber(v as bigint)])) } : {}),
    ...(limits.rpm !== undefined ? { rpm: limits.rpm } : {}),
    ...(limits.tpm !== undefined ? { tpm: limits.tpm } : {}),
  };
}
