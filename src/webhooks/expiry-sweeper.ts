import type { Logger } from 'pino';
import type { Clock } from '../billing/index.js';
import type { KeyCollections, KeyDoc } from '../accounts/index.js';
import type { WebhookCollections } from './webhook-collections.js';
import type { WebhookEmitter } from './webhook-emitter.js';
import { emitKeyExpired } from './key-events.js';

/** How far back a sweep looks: a worker pool that was down this long still reports expiries. */
const LOOK_BACK_MS = 7 * 24 * 3600 * 1000;

/**
 * Finds keys that expired (a moment, not a request, so no request path sees it) and emits
 * `key.expired`, only for accounts with endpoints. Every worker may sweep: the event id is
 * fixed per key and expiry, so an expiry is reported once.
 */
export class ExpirySweeper {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> = Promise.resolve();

  constructor(
    private readonly c: KeyCollections & WebhookCollections,
    private readonly emitter: WebhookEmitter,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  /** Sweeps now and then every `intervalMs`. */
  start(intervalMs: number): void {
    const tick = (): void => {
      this.sweeping = this.sweep().then(
        () => undefined,
        (err: unknown) => this.log.warn({ err }, 'key expiry sweep failed'),
      );
      this.timer = setTimeout(() => void this.sweeping.then(tick), intervalMs);
      this.timer.unref();
    };
    tick();
  }

  /** Stops sweeping and waits for a sweep under way. */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    await this.sweeping;
  }

  /** One sweep; returns how many events it emitted. */
  async sweep(): Promise<number> {
    const accounts = await this.c.webhookEndpoints.distinct('account_id', { disabled: false });
    if (accounts.length === 0) return 0;
    const now = this.clock();
    const expired = await this.c.keys
      .find({ account_id: { $in: accounts }, expires_at: { $lte: now, $gt: new Date(now.getTime() - LOOK_BACK_MS) } })
      .limit(10_000)
      .toArray();
    let emitted = 0;
    for (const key of expired) {
      if (key.expires_at !== null && (await emitKeyExpired(this.emitter, key as KeyDoc & { expires_at: Date }))) emitted++;
    }
    return emitted;
  }
}
