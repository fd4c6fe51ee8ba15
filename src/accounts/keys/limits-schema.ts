import { z } from 'zod';
import { parseUsdCap, type SpendWindow, WINDOW_ORDER } from '../../billing/index.js';

/** A USD amount as clients send it (number or decimal string), as nano-USD. */
export const usdCap = z.union([z.number(), z.string()]).transform((v, ctx) => {
  try {
    return parseUsdCap(v);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be a USD amount ≥ 0 with at most 9 decimals' });
    return z.NEVER;
  }
});

/**
 * Refuses a narrower window's cap above a wider one's (day ≤ week ≤ month ≤ lifetime, among
 * those set): the narrower cap could never be reached, which is always a mistake.
 */
function nested(caps: Partial<Record<SpendWindow, bigint>>, ctx: z.RefinementCtx): void {
  // Only caps that parsed: a malformed one already has its own issue.
  const set = WINDOW_ORDER.filter((w) => typeof caps[w] === 'bigint');
  for (const [i, narrow] of set.entries()) {
    for (const wide of set.slice(i + 1)) {
      if ((caps[narrow] as bigint) > (caps[wide] as bigint)) {
        ctx.addIssue({ code: 'custom', path: [narrow], message: `the ${narrow} cap is above the ${wide} cap; a narrower window's cap may not exceed a wider one's` });
        return;
      }
    }
  }
}

/** Spend caps per calendar window: UTC day, ISO week (Monday 00:00 UTC), UTC month. */
export const windowCapsSchema = z.strictObject({ day: usdCap.optional(), week: usdCap.optional(), month: usdCap.optional() }).superRefine(nested);

/** A key's spend caps: the calendar windows and lifetime. */
export const keyCapsSchema = z
  .strictObject({ lifetime: usdCap.optional(), day: usdCap.optional(), week: usdCap.optional(), month: usdCap.optional() })
  .superRefine(nested);

/** Requests per minute. */
export const rpmSchema = z.number().int().min(0).max(1_000_000);

/** Tokens per minute. */
export const tpmSchema = z.number().int().min(0).max(10_000_000_000);

/** Limits over a share of traffic (an account's keys together, or each end user of a key). */
export const sharedLimitsSchema = z.strictObject({
  spend_cap_usd: windowCapsSchema.optional(),
  rpm: rpmSchema.optional(),
  tpm: tpmSchema.optional(),
});

export type SharedLimitsInput = z.infer<typeof sharedLimitsSchema>;
