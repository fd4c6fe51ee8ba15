import { chatUnits, costOf } from '../billing/pricing.js';
import type { Nano } from '../billing/money.js';
import type { ChargeOutcome } from '../ledger/ledger-writer.js';
import type { TokenUsage } from '../providers/chat/chat-types.js';
import type { AdmittedChat } from './chat-admit.js';
import type { ChatServiceDeps } from './chat-service-deps.js';

/** What a settled request cost. */
export interface Settled {
  usage: TokenUsage;
  /** Full metered cost, nano-USD: what `usage.cost` reports. */
  cost: Nano;
  outcome: ChargeOutcome;
}

/**
 * Ends a request's admission exactly once: either a durable charge (`settle`) or a release
 * with nothing owed. Any later call gets the first call's result, so no code path can bill
 * a request twice or free its slot twice.
 */
export class ChatSettlement {
  private result: Promise<Settled> | undefined;
  private released: Promise<void> | undefined;

  constructor(
    private readonly deps: Pick<ChatServiceDeps, 'metrics' | 'log'>,
    private readonly admitted: AdmittedChat,
  ) {}

  /** Charges the usage; resolves once the charge is durable. */
  settle(usage: TokenUsage): Promise<Settled> {
    if (this.released !== undefined) return Promise.reject(new Error('settle after release'));
    this.result ??= this.charge(usage);
    return this.result;
  }

  /** Frees the hold and slot without charging (nothing was produced for the client). */
  release(): Promise<void> {
    if (this.result !== undefined) return this.result.then(() => undefined);
    this.released ??= this.admitted.ticket.release().catch((err: unknown) => {
      // The hold expires on its own; a failed release must not mask the original error.
      this.deps.log.warn({ err, request_id: this.admitted.requestId }, 'admission release failed');
    });
    return this.released;
  }

  private async charge(usage: TokenUsage): Promise<Settled> {
    const units = chatUnits(usage);
    const cost = costOf(this.admitted.model, units);
    const outcome = await this.admitted.ticket.settle(cost, units);
    this.deps.metrics?.charged('chat', outcome.charged);
    return { usage, cost, outcome };
  }
}
