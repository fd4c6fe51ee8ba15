import { toUsdNumber } from '../billing/index.js';
import type { DeliveryDoc, EndpointDoc } from './webhook-types.js';

/** The public shape of an endpoint; never the secret. */
export function toEndpointView(doc: EndpointDoc): Record<string, unknown> {
  return {
    id: doc._id,
    object: 'webhook_endpoint',
    account_id: doc.account_id,
    url: doc.url,
    description: doc.description,
    events: doc.events,
    disabled: doc.disabled,
    created_at: doc.created_at.toISOString(),
    updated_at: doc.updated_at.toISOString(),
  };
}

/** The public shape of a delivery. */
export function toDeliveryView(doc: DeliveryDoc): Record<string, unknown> {
  return {
    id: doc._id,
    object: 'webhook_delivery',
    event_id: doc.event_id,
    endpoint_id: doc.endpoint_id,
    type: doc.type,
    status: doc.status,
    attempts: doc.attempts,
    response_code: doc.response_code,
    last_error: doc.last_error,
    replays: doc.replays,
    created_at: doc.created_at.toISOString(),
    updated_at: doc.updated_at.toISOString(),
  };
}

/** The account's webhook settings. */
export function toSettingsView(threshold: bigint | null): Record<string, unknown> {
  return { balance_low_usd: threshold === null ? null : toUsdNumber(threshold) };
}
