/** Every event type an endpoint can subscribe to. */
export const WEBHOOK_EVENT_TYPES = [
  'balance.low',
  'balance.depleted',
  'budget.threshold',
  'key.disabled',
  'key.expired',
  'key.rotated',
  'topup.completed',
] as const;

/** One event type. */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** A registered endpoint as stored. The secret is kept as given, since signing needs it. */
export interface EndpointDoc {
  _id: string;
  account_id: string;
  url: string;
  description: string | null;
  /** Subscribed event types; empty means every type. */
  events: WebhookEventType[];
  disabled: boolean;
  /** `whsec_…`: base64 of the HMAC key, prefixed. */
  secret: string;
  /** The secret a rotation replaced, still signed with until `previous_until` (receivers roll over). */
  previous_secret?: string;
  previous_until?: Date;
  created_at: Date;
  updated_at: Date;
}

/** An event as stored; its id is derived from what it reports, so a crossing is stored once. */
export interface EventDoc {
  _id: string;
  account_id: string;
  type: WebhookEventType;
  /** The payload's `data`, as sent. */
  data: Record<string, unknown>;
  created_at: Date;
}

/** Where one delivery stands. */
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** One event to one endpoint: its attempts and how the last one went. */
export interface DeliveryDoc {
  /** `<event id>.<endpoint id>` */
  _id: string;
  event_id: string;
  endpoint_id: string;
  account_id: string;
  type: WebhookEventType;
  status: DeliveryStatus;
  attempts: number;
  /** HTTP status of the last attempt; null when it got no answer. */
  response_code: number | null;
  /** Why the last attempt failed (no response body, never a secret). */
  last_error: string | null;
  /** Replays asked for; each one is a job of its own. */
  replays: number;
  created_at: Date;
  updated_at: Date;
}

/** What a delivery job carries: enough to sign and send without reading the event again. */
export interface WebhookJobData {
  delivery_id: string;
  event_id: string;
  endpoint_id: string;
  account_id: string;
  type: WebhookEventType;
  /** The exact body sent (so every retry sends the same bytes). */
  body: string;
  /** W3C trace context of what queued it (`traceparent`), when traces are exported. */
  trace?: Record<string, string>;
}
