import { type CostLine, costLinesWire, type Nano } from '../../billing/index.js';
import type { ChargeOutcome } from '../../ledger/index.js';
import type { TokenUsage } from '../../providers/index.js';
import type { AdmittedChat } from '../admit/chat-admit.js';
import type { ChatServiceDeps } from '../chat-service-deps.js';
import { type BilledLeg, billLeg, type ReportedUsage, sumUnits, sumUsage } from './billed-leg.js';

export type { BilledLeg, ReportedUsage } from './billed-leg.js';

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

/**
 * Ends a request's admission exactly once: either a durable charge (`settle`) or a release
 * with nothing owed. Any later call gets the first call's result, so no code path can bill
 * a request twice or free its slot twice. A stream continued on another route settles through
 * its last leg's settlement, which carries the earlier legs: one charge whose lines are every
 * leg's, each at its own route's prices.
 */
export class ChatSettlement {
  private result: Promise<Settled> | undefined;
  private released: Promise<void> | undefined;
  private own: Promise<BilledLeg> | undefined;

  constructor(
    private readonly deps: Pick<ChatServiceDeps, 'metrics' | 'log'>,
    private readonly admitted: AdmittedChat,
    /** Legs of the same answer that ran before this one, on other routes. */
    readonly earlier: readonly BilledLeg[] = [],
  ) {}

  /** What this leg owes at its route's prices, without charging (priced once; later calls get the same). */
  bill(reported: ReportedUsage): Promise<BilledLeg> {
    this.own ??= billLeg(this.admitted, reported);
    return this.own;
  }

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
    const legs = [...this.earlier, await this.bill(reported)];
    for (const leg of legs) {
      if (leg.unpriced.length === 0) continue;
      this.deps.log.error({ request_id: admitted.requestId, model: leg.modelId, units: leg.unpriced }, 'the upstream reported units the catalog has no price for');
      this.deps.metrics?.unpricedUnits(leg.modelId, [...leg.unpriced]);
    }
    const metered = legs.reduce((sum, leg) => sum + leg.metered, 0n);
    const lines = legs.flatMap((leg) => leg.lines);
    const units = sumUnits(legs);
    const source = legs.every((leg) => leg.source === 'upstream') ? 'upstream' : 'counted';
    const outcome = await admitted.ticket.settle(metered, units, undefined, { tokenSource: source, lines: costLinesWire(lines) });
    const overLimit = metered - outcome.cost;
    if (overLimit > 0n) {
      this.deps.metrics?.overLimit('chat');
      this.deps.log.warn({ request_id: admitted.requestId, model: admitted.model.id, metered_nano: metered.toString(), held_nano: outcome.cost.toString() }, 'upstream usage beyond the hold was absorbed');
    }
    this.deps.metrics?.charged('chat', outcome.charged);
    return { usage: legs.length === 1 ? (legs[0] as BilledLeg).usage : sumUsage(legs), cost: outcome.cost, lines, overLimit, source, outcome };
  }
}
