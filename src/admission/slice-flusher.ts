import type { Logger } from 'pino';
import type { ChargeOutcome } from '../ledger/index.js';
import type { AdmissionKeys } from './admission-keys.js';
import type { FinishScope, TicketContext } from './admission-ticket.js';
import type { Slice } from './slice.js';
import { sendSliceCharges } from './slice-charges.js';

/** A charge settled from a slice, on its way to the mirrors. */
interface Applied {
  readonly scope: FinishScope;
  readonly outcome: ChargeOutcome;
  readonly at: Date;
  readonly slice: Slice;
  /** The account's Redis generation when it was settled (see {@link SliceFlusher}). */
  readonly generation: string;
}

/** How soon a batch that could not reach Redis is tried again. */
const RETRY_MS = 250;
/**
 * How long a charge waits for others to share its script call. Its slice's hold covers it
 * meanwhile, so no cap or balance is ever looser for it; only the mirrors show the spend this
 * much later. Each call is a socket write whose system call runs much of Redis's side of
 * loopback too: at 20 ms a web at a few hundred chats a second sent one call for every three
 * charges, and those writes were a third of its admission CPU; at 100 ms what was left of the call
 * (its write, building it and reading its reply) was still a fifth. A call carries at most
 * CHARGES_PER_CALL charges, so a busier web sends more calls, not longer ones.
 */
const GATHER_MS = 300;

/**
 * Carries what slices settle to Redis off the request's path: each charge (already durable in
 * the ledger) goes to the spend and balance mirrors while its slice shrinks by the cost, as its
 * own FINISH would, idempotent by request id; the charges of one scope queued together go in
 * one script call (see sendSliceCharges). Until then the slice's hold still covers the
 * charge, so Redis never sees room that is not there. A slice handed back is released only
 * after every charge settled from it was applied. While Redis is unreachable everything waits
 * and is tried again in order. A charge settled in an older Redis generation is applied without
 * shrinking the slice: the slice was placed again in the new generation at its size by then,
 * which no longer counted that charge.
 */
export class SliceFlusher {
  private applies: Applied[] = [];
  private releases: Slice[] = [];
  private readonly released = new Map<Slice, () => void>();
  private running: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private gather: NodeJS.Timeout | undefined;

  constructor(
    private readonly ctx: Pick<TicketContext, 'redis' | 'keys' | 'unappliedTtlMs'> & { readonly keys: AdmissionKeys },
    private readonly epoch: { ready(accountId?: string): Promise<void> },
    private readonly log: Logger,
  ) {}

  /** Charges and releases waiting for Redis. */
  get pending(): number {
    return this.applies.length + this.releases.length;
  }

  /** Queues a settled charge for the mirrors. */
  apply(scope: FinishScope, outcome: ChargeOutcome, at: Date, slice: Slice): void {
    this.applies.push({ scope, outcome, at, slice, generation: this.ctx.keys.generationOf(scope.key.account_id) });
    this.kick();
  }

  /**
   * Queues the release of a slice nothing runs on any more; resolves once it was sent. It goes
   * at once, with whatever charges are gathered: another process may be waiting for the room.
   */
  release(slice: Slice): Promise<void> {
    this.releases.push(slice);
    this.kick();
    return new Promise<void>((resolve) => this.released.set(slice, resolve));
  }

  /** Resolves once everything queued so far reached Redis, or after `ms`. */
  async drain(ms: number): Promise<void> {
    const until = Date.now() + ms;
    while (this.pending > 0 && Date.now() < until) {
      this.kick(true);
      await (this.running ?? new Promise((resolve) => setTimeout(resolve, 20)));
    }
  }

  /** Starts a flush on the loop's next check phase if asked `now` or a release waits, else after the gathering time. */
  private kick(now = false): void {
    if (this.running !== undefined || this.retry !== undefined) return;
    if (!now && this.releases.length === 0) {
      this.gather ??= setTimeout(() => {
        this.gather = undefined;
        this.kick(true);
      }, GATHER_MS).unref();
      return;
    }
    clearTimeout(this.gather);
    this.gather = undefined;
    this.running = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flush()).finally(() => {
      this.running = undefined;
      if (this.pending > 0 && this.retry === undefined) this.kick();
    });
  }

  /** Sends every queued charge (pipelined: no account waits for another), then the releases whose charges all landed. */
  private async flush(): Promise<void> {
    const applies = this.applies;
    const releases = this.releases;
    this.applies = [];
    this.releases = [];
    const failed = await this.send(applies);
    const waiting = new Set(failed.map((a) => a.slice));
    // A release that fails only logs: the slice is no longer renewed, so it lapses within its TTL.
    await Promise.all(
      releases.filter((slice) => !waiting.has(slice)).map(async (slice) => {
        await slice.ticket.release();
        this.released.get(slice)?.();
        this.released.delete(slice);
      }),
    );
    if (failed.length === 0) return;
    // In order, ahead of what arrived meanwhile.
    this.applies = [...failed, ...this.applies];
    this.releases = [...releases.filter((slice) => waiting.has(slice)), ...this.releases];
    if (failed.length > 0) this.log.warn({ charges: failed.length }, 'slice charges could not reach Redis; trying again');
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.kick(true);
    }, RETRY_MS);
    this.retry.unref();
  }

  /** Sends the charges, account by account; answers those that did not land, in their order. */
  private async send(applies: Applied[]): Promise<Applied[]> {
    const byAccount = new Map<string, Applied[]>();
    for (const a of applies) {
      const accountId = a.scope.key.account_id;
      const list = byAccount.get(accountId);
      if (list === undefined) byAccount.set(accountId, [a]);
      else list.push(a);
    }
    const failed = new Set<Applied>();
    await Promise.all(
      [...byAccount].map(async ([accountId, list]) => {
        for (const a of await this.sendAccount(accountId, list)) failed.add(a);
      }),
    );
    return applies.filter((a) => failed.has(a));
  }

  /** Sends one account's charges once its Redis generation is verified; answers those that did not land. */
  private async sendAccount(accountId: string, applies: Applied[]): Promise<Applied[]> {
    try {
      await this.epoch.ready(accountId);
    } catch {
      return applies;
    }
    // Read after the check and with no wait before the keys are named: the generation they carry.
    const generation = this.ctx.keys.generationOf(accountId);
    const charges = applies.map((a) => ({ scope: a.scope, outcome: a.outcome, at: a.at, shrink: a.generation === generation ? a.slice.id : '', applied: a }));
    return (await sendSliceCharges(this.ctx, charges)).map((c) => c.applied);
  }
}
