import { createHash, randomBytes } from 'node:crypto';
import { MongoServerError } from 'mongodb';
import type { Logger } from 'pino';
import { LRUCache } from 'lru-cache';
import type { EndpointService } from './endpoint-service.js';
import type { WebhookCollections } from './webhook-collections.js';
import type { WebhookQueue } from './webhook-queue.js';
import type { DeliveryDoc, EndpointDoc, EventDoc, WebhookEventType } from './webhook-types.js';
import { DUPLICATE_KEY } from '../platform/db/index.js';

/** One event to emit. `once` names the crossing: the same name never emits twice. */
export interface EmitRequest {
  accountId: string;
  type: WebhookEventType;
  data: Record<string, unknown>;
  /** What makes the event unique (e.g. key, window, period and threshold); absent: every call is new. */
  once?: string;
}

/** The event id: random, or derived from its `once` name so every process derives the same. */
function eventId(request: EmitRequest): string {
  if (request.once === undefined) return `evt_${randomBytes(12).toString('hex')}`;
  const digest = createHash('sha256').update(`${request.accountId}\n${request.type}\n${request.once}`).digest('hex');
  return `evt_${digest.slice(0, 24)}`;
}

/** The exact JSON body of an event (Standard Webhooks' `type`, `timestamp`, `data`, plus its id). */
export function eventBody(event: EventDoc): string {
  return JSON.stringify({ id: event._id, type: event.type, timestamp: event.created_at.toISOString(), data: event.data });
}

/**
 * Emits events: stores each once (its id is the unique key, so a crossing seen by a hundred
 * requests in several processes is one event) and enqueues a delivery per subscribed endpoint.
 * Accounts without endpoints cost a cached lookup and nothing else.
 */
export class WebhookEmitter {
  /** Event ids this process already stored or found stored: no round trip to learn it again. */
  private readonly known = new LRUCache<string, true>({ max: 50_000 });

  constructor(
    private readonly c: WebhookCollections,
    private readonly endpoints: EndpointService,
    private readonly queue: WebhookQueue,
    private readonly log: Logger,
  ) {}

  /** Emits in the background; failures are logged, never thrown at the caller. */
  fire(request: EmitRequest): void {
    this.emit(request).catch((err: unknown) => this.log.warn({ err, type: request.type }, 'webhook event not emitted'));
  }

  /** Stores and enqueues an event; false when it was emitted before or nobody listens. */
  async emit(request: EmitRequest): Promise<boolean> {
    const id = eventId(request);
    if (this.known.has(id)) return false;
    const endpoints = await this.endpoints.subscribers(request.accountId, request.type);
    if (endpoints.length === 0) return false;
    const event: EventDoc = { _id: id, account_id: request.accountId, type: request.type, data: request.data, created_at: new Date() };
    try {
      await this.c.webhookEvents.insertOne(event);
    } catch (err) {
      if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) {
        this.known.set(id, true);
        return false;
      }
      throw err;
    }
    this.known.set(id, true);
    await Promise.all(endpoints.map((endpoint) => this.deliver(event, endpoint)));
    return true;
  }

  private async deliver(event: EventDoc, endpoint: EndpointDoc): Promise<void> {
    const now = new Date();
    const delivery: DeliveryDoc = {
      _id: `${event._id}.${endpoint._id}`, event_id: event._id, endpoint_id: endpoint._id, account_id: event.account_id, type: event.type,
      status: 'pending', attempts: 0, response_code: null, last_error: null, replays: 0, created_at: now, updated_at: now,
    };
    await this.c.webhookDeliveries.insertOne(delivery);
    await this.queue.add({ delivery_id: delivery._id, event_id: event._id, endpoint_id: endpoint._id, account_id: event.account_id, type: event.type, body: eventBody(event) });
  }
}
