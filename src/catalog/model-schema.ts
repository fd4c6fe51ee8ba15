import { z } from 'zod';

const price = z
  .union([z.string(), z.number()])
  .transform((v) => String(v))
  .pipe(z.string().regex(/^\d+(\.\d{1,18})?$/, 'must be a non-negative decimal with at most 18 decimals'));

/** Fields of a catalog entry an operator may set (seed file and PUT /v1/admin/models). */
export const modelInputSchema = z.strictObject({
  name: z.string().min(1).max(200),
  kind: z.enum(['chat', 'image', 'ocr']),
  provider: z.string().min(1).max(100),
  upstream_model: z.string().min(1).max(200),
  pricing: z.strictObject({
    prompt: price.optional(),
    completion: price.optional(),
    image: price.optional(),
    page: price.optional(),
    image_input: price.optional(),
    image_output: price.optional(),
    text_input: price.optional(),
  }),
  capabilities: z.array(z.string().regex(/^[A-Z_]{2,40}$/)).max(20).default([]),
  context_length: z.number().int().positive().nullable().default(null),
  /** Most tokens one answer may have (the hold of a request without `max_tokens`). */
  max_output_tokens: z.number().int().positive().nullable().default(null),
  free_tier: z.boolean().default(false),
  owned_by: z.string().min(1).max(100).optional(),
  created: z.number().int().nonnegative().optional(),
});

/** A seed file entry: the operator fields plus the id. */
export const seedModelSchema = modelInputSchema.extend({
  id: z.string().regex(/^[a-z0-9][a-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._:-]*$/),
});

export type ModelInput = z.infer<typeof modelInputSchema>;
export type SeedModel = z.infer<typeof seedModelSchema>;
