import type { BilledUnits, Clock } from '../billing/index.js';
import type { CatalogModel } from '../catalog/index.js';
import type { ChargeOutcome } from '../ledger/index.js';
import { chargeLedger, type ChargeSubject, type FinishScope, type TicketContext } from './admission-ticket.js';
import type { AdmissionTicket, SettleDetail } from './admission-types.js';
import type { Slice } from './slice.js';
import type { SliceFlusher } from './slice-flusher.js';

/** What a leased ticket needs: the ledger, the clock, and where its charge goes on to Redis. */
export interface LeasedTicketContext {
  readonly ledger: TicketContext['ledger'];
  readonly clock: Clock;
  readonly flusher: SliceFlusher;
  /**
   * Told when the request ended, with the slice's new size; when that hands the slice back (it
   * was retired), a promise of its return, else nothing to wait for.
   */
  ended(slice: Slice): Promise<void> | undefined;
  /** Holds `estimate` for the request on the exact path (its own hold in Redis, under every cap and the balance). */
  exact?(requestId: string, estimate: bigint): Promise<AdmissionTicket>;
}

/**
 * A request admitted from a slice. Settling charges the ledger first (durable, idempotent by
 * request id), exactly as an exact ticket does; then the request's hold goes back to the slice
 * less the cost, and the charge goes on to Redis's mirrors in the background (see
 * SliceFlusher): nothing on the request's path waits for Redis.
 */
export class LeasedTicket implements AdmissionTicket {
  private settlement: Promise<ChargeOutcome> | undefined;
  private ended = false;
  readonly requestId: string;
  private heldNow: bigint;
  /** The exact hold the request moved to when it had to grow beyond its slice's room. */
  private moved: AdmissionTicket | undefined;

  constructor(
    private readonly ctx: LeasedTicketContext,
    private readonly subject: ChargeSubject & FinishScope,
    private readonly slice: Slice,
  ) {
    this.requestId = subject.requestId;
    this.heldNow = subject.held;
  }

  /** What the request holds: of its slice, or on the exact path once it moved there. */
  get held(): bigint {
    return this.moved?.held ?? this.heldNow;
  }

  /**
   * Takes `extra` more of the slice's room for the request. When the slice lacks that room,
   * the request moves to the exact path: one hold of its whole new worst case is placed under
   * every cap and the balance, and only then does its reservation go back to the slice
   * (uncharged), so its money is never uncovered. It settles there from then on; a charge
   * cannot be split between a slice and another hold without the slice's accounting running
   * short. False, holding nothing more, when neither has the room.
   */
  async grow(extra: bigint): Promise<boolean> {
    if (extra <= 0n) return true;
    if (this.moved !== undefined) return (await this.moved.grow?.(extra)) ?? false;
    if (this.settlement || this.ended) return false;
    if (this.slice.reserve(extra)) {
      this.heldNow += extra;
      return true;
    }
    if (this.ctx.exact === undefined) return false;
    let moved: AdmissionTicket;
    try {
      moved = await this.ctx.exact(this.requestId, this.heldNow + extra);
    } catch {
      // Refused (a cap or the balance) or Redis unreachable: no more than the slice's room.
      return false;
    }
    if (this.settlement || this.ended) {
      await moved.release();
      return false;
    }
    this.moved = moved;
    await this.end(undefined);
    return true;
  }

  settle(cost: bigint, units: BilledUnits, priced?: CatalogModel, detail?: SettleDetail): Promise<ChargeOutcome> {
    if (this.moved !== undefined) return this.moved.settle(cost, units, priced ?? this.subject.model, detail);
    this.settlement ??= this.charge(cost, units, priced ?? this.subject.model, detail).catch((err: unknown) => {
      // Nothing was charged: the hold stays reserved until a later settle or the release.
      this.settlement = undefined;
      throw err;
    });
    return this.settlement;
  }

  async release(charged?: ChargeOutcome): Promise<void> {
    if (this.moved !== undefined) return this.moved.release(charged);
    if (this.settlement || this.ended) return;
    // A worker may have billed elsewhere: what it charged still goes to the mirrors.
    await this.end(charged);
  }

  /** Stream slots of keys without a stream limit are not counted on the leased path. */
  async freeStreamSlot(): Promise<void> {}

  private async charge(metered: bigint, units: BilledUnits, priced: CatalogModel, detail?: SettleDetail): Promise<ChargeOutcome> {
    const at = this.ctx.clock();
    const outcome = await chargeLedger(this.ctx.ledger, { ...this.subject, held: this.heldNow }, { metered, units, priced, lines: detail?.lines, at });
    // Most requests end with nothing to wait for: no turn of the microtask queue for them.
    const handingBack = this.end(outcome, at);
    if (handingBack !== undefined) await handingBack;
    return outcome;
  }

  /** Gives the hold back to the slice less the cost, once; a promise while the slice goes back because of it. */
  private end(outcome: ChargeOutcome | undefined, at = this.ctx.clock()): Promise<void> | undefined {
    if (this.ended) return undefined;
    this.ended = true;
    this.slice.put(this.heldNow, outcome?.cost ?? 0n);
    if (outcome !== undefined) this.ctx.flusher.apply(this.subject, outcome, at, this.slice);
    return this.ctx.ended(this.slice);
  }
}
