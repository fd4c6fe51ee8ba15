import { z } from 'zod';
import { keyCapsSchema, rpmSchema, sharedLimitsSchema, tpmSchema, usdCap } from './limits-schema.js';

/** `limits` as clients send it (USD numbers); caps become nano-USD. */
export const limitsInputSchema = z.strictObject({
  spend_cap_usd: keyCapsSchema.optional(),
  rpm: rpmSchema.optional(),
  tpm: tpmSchema.optional(),
  concurrent_streams: z.number().int().min(0).max(100_000).optional(),
  models: z.array(z.string().min(1).max(200)).max(1000).optional(),
  /** USD; a request whose worst case is above it is refused with its quote. */
  max_cost_per_request: usdCap.optional(),
  /** Spend caps, rpm and tpm applied to each distinct end user the requests name. */
  end_user_limits: sharedLimitsSchema.optional(),
  /** Seconds the key's answers are kept in, and served from, the exact response cache (30 days at most). */
  cache_ttl_seconds: z.number().int().min(0).max(30 * 24 * 3600).optional(),
});

const expiresAt = z.iso
  .datetime({ offset: true })
  .transform((v) => new Date(v))
  .nullable();

/**
 * A new key's expiry is in the future: a key dead at birth is a mistake (often a time zone).
 * An update may still set a past time, to end a key's life at a known instant.
 */
const futureExpiresAt = expiresAt.refine((at) => at === null || at.getTime() > Date.now(), 'must be in the future');

/** Body of key creation (operator and management API). */
export const createKeySchema = z.strictObject({
  name: z.string().min(1).max(200),
  role: z.enum(['inference', 'management']).default('inference'),
  limits: limitsInputSchema.default({}),
  expires_at: futureExpiresAt.optional(),
});

/** Body of a key update; every field optional, `limits` replaces the whole set. */
export const patchKeySchema = z.strictObject({
  name: z.string().min(1).max(200).optional(),
  disabled: z.boolean().optional(),
  limits: limitsInputSchema.optional(),
  expires_at: expiresAt.optional(),
});

export type CreateKeyInput = z.infer<typeof createKeySchema>;
export type PatchKeyInput = z.infer<typeof patchKeySchema>;
