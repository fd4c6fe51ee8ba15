import type { Logger } from 'pino';
import type { AccountCollections, KeyCollections, KeyEventSink } from '../accounts/index.js';
import { type Clock, toUsdNumber } from '../billing/index.js';
import type { WebhookSettings } from '../platform/config/index.js';
import type { LedgerDoc } from '../ledger/index.js';
import type { Redis } from '../platform/redis/index.js';
import type { HostResolver } from '../platform/security/index.js';
import { DeliveryLog } from './delivery-log.js';
import { EndpointService } from './endpoint-service.js';
import { endpointGuard } from './endpoint-url.js';
import { keyEventSink } from './key-events.js';
import { SpendWatcher } from './spend-watcher.js';
import type { WebhookCollections } from './webhook-collections.js';
import { WebhookEmitter } from './webhook-emitter.js';
import { WebhookQueue } from './webhook-queue.js';

/** What the webhooks need from their process. */
export interface WebhooksDeps {
  readonly c: WebhookCollections & AccountCollections & KeyCollections;
  /** A connection the `webhooks` queue producer may share. */
  readonly redis: Redis;
  readonly redisPrefix: string;
  readonly settings: WebhookSettings;
  readonly clock: Clock;
  readonly log: Logger;
  /** Host resolver for the URL rules (tests name fake public hosts). */
  readonly resolver?: HostResolver;
}

/**
 * The webhooks of a process: endpoints, the emitter and its hooks (ledger commits, key
 * changes, credits), the delivery log and the producer of the `webhooks` queue.
 */
export class Webhooks {
  readonly endpoints: EndpointService;
  readonly emitter: WebhookEmitter;
  readonly deliveries: DeliveryLog;
  /** Ledger hook: balance and budget crossings after each committed batch. */
  readonly spend: SpendWatcher;
  /** Key service hook: `key.disabled`, `key.rotated`. */
  readonly keyEvents: KeyEventSink;
  readonly queue: WebhookQueue;

  constructor(deps: WebhooksDeps) {
    const guard = endpointGuard({ allowLoopback: deps.settings.allowLoopback, resolver: deps.resolver });
    this.endpoints = new EndpointService(deps.c, async (url) => void (await guard(url)));
    this.queue = new WebhookQueue(deps.redis, deps.redisPrefix, deps.settings, deps.log);
    this.emitter = new WebhookEmitter(deps.c, this.endpoints, this.queue, deps.log);
    this.deliveries = new DeliveryLog(deps.c, this.queue);
    this.spend = new SpendWatcher(deps.c, this.endpoints, this.emitter, deps.clock, deps.log);
    this.keyEvents = keyEventSink(this.emitter);
  }

  /** Credit hook: `topup.completed` for a new top-up (grants are not top-ups). */
  credited(entry: LedgerDoc): void {
    if (entry.kind !== 'topup') return;
    const data = { account_id: entry.account_id, amount_usd: toUsdNumber(entry.credit), reference: entry.reference, ledger_entry_id: entry._id };
    this.emitter.fire({ accountId: entry.account_id, type: 'topup.completed', data, once: entry._id });
  }

  /** Lets pending checks finish and closes the producer. */
  async close(): Promise<void> {
    await this.spend.settle();
    await this.queue.close();
  }
}
