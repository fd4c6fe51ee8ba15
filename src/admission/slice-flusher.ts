import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { ChargeOutcome } from '../ledger/index.js';
import type { AdmissionKeys } from './admission-keys.js';
import type { FinishScope, TicketContext } from './admission-ticket.js';
import type { Slice } from './slice.js';
import { batchCharges, type ChargeBatch, sendChargeBatch, type SliceCharge } from './slice-charges.js';

/** A charge settled from a slice, on its way to the mirrors. */
interface Applied extends SliceCharge {
  readonly slice: Slice;
}

type Batch = ChargeBatch<Applied>;

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
 * own FINISH would; the charges of one scope queued together go in one script call, a batch
 * (see batchCharges). A batch is applied once by its id, and one whose call failed (its reply
 * may have been lost after it landed) is sent again whole, never regrouped: each charge is in
 * one batch only. Until then the slice's hold still covers the charge, so Redis never sees room
 * that is not there. A slice handed back is released only after every charge settled from it
 * was applied. While Redis is unreachable everything waits and is tried again in order.
 */
export class SliceFlusher {
  private applies: Applied[] = [];
  /** Batches sent whose call failed, in order: sent again as they are. */
  private batches: Batch[] = [];
  private releases: Slice[] = [];
  /** Names this process's batches apart from every other's. */
  private readonly process = randomBytes(6).toString('base64url');
  private batchesMade = 0;
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
    let charges = this.applies.length;
    for (const batch of this.batches) charges += batch.charges.length;
    return charges + this.releases.length;
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
    const { applies, batches, releases } = this;
    this.applies = [];
    this.batches = [];
    this.releases = [];
    const failed = await this.send(applies, batches);
    const waiting = new Set<Slice>();
    for (const a of failed.applies) waiting.add(a.slice);
    for (const batch of failed.batches) for (const a of batch.charges) waiting.add(a.slice);
    // A release that fails only logs: the slice is no longer renewed, so it lapses within its TTL.
    await Promise.all(
      releases.filter((slice) => !waiting.has(slice)).map(async (slice) => {
        await slice.ticket.release();
        this.released.get(slice)?.();
        this.released.delete(slice);
      }),
    );
    if (waiting.size === 0) return;
    // In order, ahead of what arrived meanwhile.
    this.applies = [...failed.applies, ...this.applies];
    this.batches = [...failed.batches, ...this.batches];
    this.releases = [...releases.filter((slice) => waiting.has(slice)), ...this.releases];
    const charges = failed.batches.reduce((sum, batch) => sum + batch.charges.length, failed.applies.length);
    this.log.warn({ charges }, 'slice charges could not reach Redis; trying again');
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.kick(true);
    }, RETRY_MS);
    this.retry.unref();
  }

  /** Sends the charges and batches, account by account; answers what did not land, in order. */
  private async send(applies: readonly Applied[], batches: readonly Batch[]): Promise<Unsent> {
    const byAccount = new Map<string, Unsent>();
    const of = (accountId: string): Unsent => {
      let unsent = byAccount.get(accountId);
      if (unsent === undefined) byAccount.set(accountId, (unsent = { applies: [], batches: [] }));
      return unsent;
    };
    for (const batch of batches) of(accountOf(batch.charges[0] as Applied)).batches.push(batch);
    for (const a of applies) of(accountOf(a)).applies.push(a);
    const failed = await Promise.all([...byAccount].map(([accountId, unsent]) => this.sendAccount(accountId, unsent)));
    return { applies: failed.flatMap((f) => f.applies), batches: failed.flatMap((f) => f.batches) };
  }

  /**
   * Sends one account's batches, then its new charges in new batches, once its Redis generation
   * is verified; answers what did not land.
   */
  private async sendAccount(accountId: string, unsent: Unsent): Promise<Unsent> {
    try {
      await this.epoch.ready(accountId);
    } catch {
      return unsent;
    }
    // Read after the check and with no wait before the keys are named: the generation they carry.
    const generation = this.ctx.keys.generationOf(accountId);
    const batches = [...unsent.batches, ...batchCharges(unsent.applies, () => `${this.process}.${(this.batchesMade += 1)}`)];
    const failed = new Set<Batch>();
    await Promise.all(batches.map((batch) => sendChargeBatch(this.ctx, batch, generation).catch(() => failed.add(batch))));
    return { applies: [], batches: batches.filter((batch) => failed.has(batch)) };
  }
}

/** What is still to reach Redis: charges not in a batch yet, and batches sent whose call failed. */
interface Unsent {
  readonly applies: Applied[];
  readonly batches: Batch[];
}

function accountOf(a: Applied): string {
  return a.scope.key.account_id;
}
