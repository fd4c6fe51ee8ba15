import { GatewayError } from '../platform/errors/index.js';
import type { WebhookCollections } from './webhook-collections.js';
import { eventBody } from './webhook-emitter.js';
import type { WebhookQueue } from './webhook-queue.js';
import type { DeliveryDoc, DeliveryStatus } from './webhook-types.js';

/** How one attempt went, as the worker records it. */
export interface AttemptResult {
  ok: boolean;
  responseCode: number | null;
  error: string | null;
  /** True when no retry follows (success, last attempt, or a failure no retry can fix). */
  final: boolean;
}

function notFound(id: string): GatewayError {
  return new GatewayError('not_found', `No delivery '${id}'`, { param: 'delivery_id' });
}

/** The delivery log: each delivery's status, response code and attempts; replays. */
export class DeliveryLog {
  constructor(
    private readonly c: WebhookCollections,
    private readonly queue?: WebhookQueue,
  ) {}

  /** Deliveries of one endpoint, newest first. */
  list(endpointId: string, limit: number, status?: DeliveryStatus): Promise<DeliveryDoc[]> {
    const filter = status === undefined ? { endpoint_id: endpointId } : { endpoint_id: endpointId, status };
    return this.c.webhookDeliveries.find(filter).sort({ created_at: -1, _id: -1 }).limit(limit).toArray();
  }

  /** Records one attempt. */
  async record(deliveryId: string, result: AttemptResult): Promise<void> {
    const status: DeliveryStatus = result.ok ? 'succeeded' : result.final ? 'failed' : 'pending';
    await this.c.webhookDeliveries.updateOne(
      { _id: deliveryId },
      { $inc: { attempts: 1 }, $set: { status, response_code: result.responseCode, last_error: result.error, updated_at: new Date() } },
    );
  }

  /**
   * Sends a delivery again (whatever its status), with the same event id and body: receivers
   * that already saw it can drop it by `webhook-id`. The attempt count goes on from where it was.
   */
  async replay(deliveryId: string, endpointId: string): Promise<DeliveryDoc> {
    if (!this.queue) throw new Error('replay needs the webhook queue');
    const delivery = await this.c.webhookDeliveries.findOne({ _id: deliveryId, endpoint_id: endpointId });
    if (!delivery) throw notFound(deliveryId);
    const event = await this.c.webhookEvents.findOne({ _id: delivery.event_id });
    if (!event) throw notFound(deliveryId);
    const updated = await this.c.webhookDeliveries.findOneAndUpdate(
      { _id: deliveryId },
      { $inc: { replays: 1 }, $set: { status: 'pending', updated_at: new Date() } },
      { returnDocument: 'after' },
    );
    if (!updated) throw notFound(deliveryId);
    await this.queue.add(
      { delivery_id: delivery._id, event_id: event._id, endpoint_id: endpointId, account_id: delivery.account_id, type: delivery.type, body: eventBody(event) },
      updated.replays,
    );
    return updated;
  }
}
