import { z } from 'zod';
import { PRICE_KEYS, type PriceKey } from '../billing/index.js';

const price = z
  .union([z.string(), z.number()])
  .transform((v) => String(v))
  .pipe(z.string().regex(/^\d+(\.\d{1,18})?$/, 'must be a non-negative decimal with at most 18 decimals'));

const unitPrices = z.strictObject(Object.fromEntries(PRICE_KEYS.map((key) => [key, price.optional()])) as Record<PriceKey, z.ZodOptional<typeof price>>);

/** The fraction of a cached answer's original cost a cache hit pays: 0 to 1. */
const cacheHitFraction = price.refine((v) => Number(v) <= 1, 'must be a fraction between 0 and 1');

/** An entry's prices: the unit prices and the cache-hit fraction. */
const pricing = unitPrices.extend({ cache_hit: cacheHitFraction.optional() });

/** A model id as clients send it: `<vendor>/<model>`. */
export const MODEL_ID = /^[a-z0-9][a-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._:-]*$/;

const route = z.strictObject({
  provider: z.string().min(1).max(100),
  upstream_model: z.string().min(1).max(200),
  pricing: unitPrices.optional(),
  /** Whether the route continues a partial answer given as a trailing assistant message (wins over the provider's). */
  prefill: z.boolean().optional(),
});

const baseModelSchema = z.strictObject({
  name: z.string().min(1).max(200),
  kind: z.enum(['chat', 'image', 'ocr', 'embedding']),
  provider: z.string().min(1).max(100).optional(),
  upstream_model: z.string().min(1).max(200).optional(),
  /** Routes in order of preference; the `provider`/`upstream_model` pair is the one-route short form. */
  routes: z.array(route).min(1).max(8).optional(),
  aliases: z.array(z.string().regex(MODEL_ID, 'must look like <vendor>/<model>')).max(16).optional(),
  pricing,
  capabilities: z.array(z.string().regex(/^[A-Z_]{2,40}$/)).max(20).default([]),
  context_length: z.number().int().positive().nullable().default(null),
  /** Most tokens one answer may have (the hold of a request without `max_tokens`). */
  max_output_tokens: z.number().int().positive().nullable().default(null),
  tokenizer: z.enum(['o200k', 'other']).optional(),
  max_web_searches: z.number().int().nonnegative().max(1000).nullable().optional(),
  free_tier: z.boolean().default(false),
  /** Embedding models: default vector length (what `dimensions` may shorten). */
  dimensions: z.number().int().positive().max(16_384).nullable().optional(),
  owned_by: z.string().min(1).max(100).optional(),
  created: z.number().int().nonnegative().optional(),
});

/**
 * Prices every model of a kind must have, because its upstream reports those units on every
 * call: a unit without a price would be billed at $0 by omission. Keys that refine another
 * (`internal_reasoning`, the cache keys) fall back to it, so they may be left out.
 */
const REQUIRED_PRICES: Readonly<Record<string, ReadonlyArray<ReadonlyArray<PriceKey>>>> = {
  chat: [['prompt'], ['completion']],
  ocr: [['page']],
  image: [['image', 'image_output']],
};

function requirePrices(input: { kind: string; pricing: Partial<Record<PriceKey, string>> }, ctx: z.RefinementCtx): void {
  for (const anyOf of REQUIRED_PRICES[input.kind] ?? []) {
    if (anyOf.some((key) => input.pricing[key] !== undefined)) continue;
    ctx.addIssue({ code: 'custom', path: ['pricing', anyOf[0] ?? ''], message: `a ${input.kind} model needs a price for ${anyOf.join(' or ')}` });
  }
}

interface RoutedInput {
  provider?: string | undefined;
  upstream_model?: string | undefined;
  routes?: unknown[] | undefined;
}

/** Exactly one way to name the routes: the short pair, or the list. */
function requireRoutes(input: RoutedInput, ctx: z.RefinementCtx): void {
  const pair = input.provider !== undefined || input.upstream_model !== undefined;
  if (input.routes !== undefined && pair) {
    ctx.addIssue({ code: 'custom', path: ['routes'], message: 'give either routes or provider and upstream_model, not both' });
  } else if (input.routes === undefined && (input.provider === undefined || input.upstream_model === undefined)) {
    ctx.addIssue({ code: 'custom', path: [input.provider === undefined ? 'provider' : 'upstream_model'], message: 'required (or give routes)' });
  }
}

function refineModel(input: z.output<typeof baseModelSchema>, ctx: z.RefinementCtx): void {
  requirePrices(input, ctx);
  requireRoutes(input, ctx);
}

/** Fields of a catalog entry an operator may set (seed file and PUT /v1/admin/models). */
export const modelInputSchema = baseModelSchema.superRefine(refineModel);

/** A seed file entry: the operator fields plus the id. */
export const seedModelSchema = baseModelSchema.extend({ id: z.string().regex(MODEL_ID) }).superRefine(refineModel);

export type ModelInput = z.infer<typeof modelInputSchema>;
export type SeedModel = z.infer<typeof seedModelSchema>;
