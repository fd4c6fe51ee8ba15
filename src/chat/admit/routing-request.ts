import { z } from 'zod';
import type { ChatRequestBody } from '../../providers/index.js';
import { validate } from '../../platform/validation/index.js';

const providerIds = z.array(z.string().min(1).max(100)).max(32);

/** OpenRouter's request-level routing fields: a fallback list of models and provider preferences. */
export const routingSchema = z.looseObject({
  /** Catalog ids tried in order after `model` (OpenRouter's `models`). */
  models: z.array(z.string().min(1).max(256)).max(8).optional(),
  provider: z
    .strictObject({
      order: providerIds.optional(),
      only: providerIds.optional(),
      ignore: providerIds.optional(),
      allow_fallbacks: z.boolean().optional(),
      sort: z.enum(['price', 'latency']).optional(),
    })
    .nullable()
    .optional(),
});

/** Provider preferences of one request. */
export interface ProviderPreferences {
  readonly order?: readonly string[] | undefined;
  readonly only?: readonly string[] | undefined;
  readonly ignore?: readonly string[] | undefined;
  readonly allow_fallbacks?: boolean | undefined;
  readonly sort?: 'price' | 'latency' | undefined;
}

/** What a request asks of routing: the models to try in order, and provider preferences. */
export interface RoutingRequest {
  readonly models: readonly string[];
  readonly provider: ProviderPreferences;
}

/**
 * Splits the routing fields off a chat body: they steer the gateway and are never sent
 * upstream. The models list starts with `model` and drops repeats.
 * @throws GatewayError `invalid_request` naming the bad field.
 */
export function splitRouting(body: ChatRequestBody): { body: ChatRequestBody; routing: RoutingRequest } {
  const fields = body as unknown as Record<string, unknown>;
  // Most requests name neither field: nothing to check or take off, and no copy of the body.
  if (fields.models === undefined && fields.provider === undefined) return { body, routing: { models: [body.model], provider: {} } };
  const parsed = validate(routingSchema, body);
  const { models: _models, provider: _provider, ...rest } = body;
  const models = [...new Set([body.model, ...(parsed.models ?? [])])];
  return { body: rest as ChatRequestBody, routing: { models, provider: parsed.provider ?? {} } };
}
