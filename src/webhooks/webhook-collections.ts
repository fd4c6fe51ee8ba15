import type { Collection, Db } from 'mongodb';
import type { DeliveryDoc, EndpointDoc, EventDoc } from './webhook-types.js';

/** The webhook collections: endpoints, emitted events and their deliveries. */
export interface WebhookCollections {
  readonly webhookEndpoints: Collection<EndpointDoc>;
  readonly webhookEvents: Collection<EventDoc>;
  readonly webhookDeliveries: Collection<DeliveryDoc>;
}

/** The webhook collections of a database (their names live here only). */
export function webhookCollections(db: Db): WebhookCollections {
  return {
    webhookEndpoints: db.collection<EndpointDoc>('webhook_endpoints'),
    webhookEvents: db.collection<EventDoc>('webhook_events'),
    webhookDeliveries: db.collection<DeliveryDoc>('webhook_deliveries'),
  };
}

const KEEP_EVENTS_SECONDS = 90 * 24 * 3600;

/**
 * Listing endpoints per account, deliveries per endpoint newest first, and a retention for
 * events and deliveries. An event's id is its `_id`: the unique index that makes a crossing
 * emit once however many processes see it.
 */
export async function ensureWebhookIndexes(c: WebhookCollections): Promise<void> {
  await c.webhookEndpoints.createIndex({ account_id: 1, created_at: -1 });
  await c.webhookDeliveries.createIndex({ endpoint_id: 1, created_at: -1, _id: -1 });
  await c.webhookDeliveries.createIndex({ created_at: 1 }, { expireAfterSeconds: KEEP_EVENTS_SECONDS });
  await c.webhookEvents.createIndex({ created_at: 1 }, { expireAfterSeconds: KEEP_EVENTS_SECONDS });
}
