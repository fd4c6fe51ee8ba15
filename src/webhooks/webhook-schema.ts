import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from './webhook-types.js';

const url = z.string().min(1).max(2048);
const events = z.array(z.enum(WEBHOOK_EVENT_TYPES)).max(WEBHOOK_EVENT_TYPES.length);

/** Body of endpoint creation. */
export const createEndpointSchema = z.strictObject({
  url,
  description: z.string().max(200).optional(),
  events: events.optional(),
});

/** Body of an endpoint update. */
export const patchEndpointSchema = z.strictObject({
  url: url.optional(),
  description: z.string().max(200).nullable().optional(),
  events: events.optional(),
  disabled: z.boolean().optional(),
});

/** Body of the account's webhook settings: the balance under which `balance.low` fires (null: never). */
export const webhookSettingsSchema = z.strictObject({
  balance_low_usd: z.union([z.number().nonnegative(), z.string().regex(/^\d+(\.\d+)?$/), z.null()]),
});

/** Query of a delivery listing. */
export const deliveryQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  status: z.enum(['pending', 'succeeded', 'failed']).optional(),
});

/** An endpoint to create, as validated. */
export type CreateEndpointInput = z.infer<typeof createEndpointSchema>;
/** An endpoint update, as validated. */
export type PatchEndpointInput = z.infer<typeof patchEndpointSchema>;
