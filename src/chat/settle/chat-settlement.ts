import { chatUnits, type CostLine, costLinesWire, type Nano, priceUnits } from '../../billing/index.js';
import type { ChargeOutcome } from '../../ledger/index.js';
import type { TokenUsage } from '../../providers/index.js';
import type { AdmittedChat } from '../admit/chat-admit.js';
import type { ChatServiceDeps } from '../chat-service-deps.js';
import type { ProducedText } from '../wire/produced-text.js';
import { settlementUsage } from './settlement-usage.js';

/** What a settled request cost. */
export interface Settled {
  usage: TokenUsage;
  /** What the request is billed, nano-USD (never above its hold): what `usage.cost` reports. */
  cost: Nano;
  /** The billed components; with the over-limit line (if any) they sum to `cost`. */
  lines: CostLine[];
  /** Metered cost beyond the hold that the gateway absorbed (an upstream broke its limit). */
  overLimit: Nano;
  /** Where the counts came from: the upstream's report, or a count made here. */
  source: 'upstream' | 'counted';
  outcome: ChargeOutcome;
}

/** How a request's usage arrived: what the upstream reported, and whether that report is complete. */
export interface ReportedUsage {
  readonly usage: TokenUsage | undefined;
  /** False when the answer ended before the upstream's final counts (only partial ones, or none). */
  readonly complete: boolean;
  readonly produced: ProducedText;
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

  /** Charges what the request used (see settlementUsage); resolves once the charge is durable. */
  settle(reported: ReportedUsage): Promise<Settled> {
    if (this.released !== undefined) return Promise.reject(new Error('settle after release'));
    this.result ??= this.charge(reported);
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

  private async charge(reported: ReportedUsage): Promise<Settled> {
    const { admitted } = this;
    const usage = await settlementUsage(admitted, reported.usage, reported.complete, reported.produced);
    const source = reported.complete && reported.usage !== undefined ? 'upstream' : 'counted';
    const units = chatUnits(usage);
    const bill = priceUnits(admitted.model, units);
    if (bill.unpriced.length > 0) {
      this.deps.log.error({ request_id: admitted.requestId, model: admitted.model.id, units: bill.unpriced }, 'the upstream reported units the catalog has no price for');
      this.deps.metrics?.unpricedUnits(admitted.model.id, bill.unpriced);
    }
    const outcome = await admitted.ticket.settle(bill.cost, units, undefined, { tokenSource: source, lines: costLinesWire(bill.lines) });
    const overLimit = bill.cost - outcome.cost;
    if (overLimit > 0n) {
      this.deps.metrics?.overLimit('chat');
      this.deps.log.warn({ request_id: admitted.requestId, model: admitted.model.id, metered_nano: bill.cost.toString(), held_nano: outcome.cost.toString() }, 'upstream usage beyond the hold was absorbed');
    }
    this.deps.metrics?.charged('chat', outcome.charged);
    return { usage, cost: outcome.cost, lines: bill.lines, overLimit, source, outcome };
  }
}
