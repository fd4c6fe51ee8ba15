import type { Logger } from 'pino';
import { DUPLICATE_KEY, type MongoHealth } from '../platform/db/index.js';
import { classifyError, GatewayError } from '../platform/errors/index.js';
import type { ChargeOutcome, ChargeRequest } from './apply-charges.js';
import type { ChargeSpool } from './charge-spool.js';
import type { LedgerWriter } from './ledger-writer.js';
import type { SpoolBeacon } from './spool-beacon.js';
import type { LedgerAck } from '../platform/config/index.js';

/** Timing of the spooling ledger, and when it acknowledges a charge. */
export interface SpoolingOptions {
  /** `commit` (default): once MongoDB committed it; `local`: once the spool fsync'd it. */
  readonly ack?: LedgerAck;
  /** Longest a charge waits for MongoDB before it is spooled instead. */
  readonly commitWaitMs?: number;
  /** How often the spool is drained and the beacon exchanged (default 250 ms; 25 ms under `local`). */
  readonly tickMs?: number;
}

/** How often processes of either mode look for spool files of processes that died. */
const ADOPT_EVERY_MS = 5_000;

/**
 * Under `local`, paid admission closes once a spooled charge has waited this long for MongoDB
 * (here or in another process): the drain is not keeping up, or MongoDB is away.
 */
const LOCAL_BACKLOG_MS = 2_000;

/** Under `local`, a fully drained spool file is replaced by a new one after this long. */
const LOCAL_ROTATE_MS = 5_000;

/** Longest a mirror rebuild or a read of money figures waits for older spooled charges to reach MongoDB. */
const SETTLE_WAIT_MS = 5_000;

/** How often MongoDB's health is looked at while charges wait for their commit. */
const WATCH_MS = 100;

/** A charge waiting for its commit: when it stops waiting, and how. */
interface CommitWaiter {
  readonly deadline: number;
  readonly giveUp: () => void;
}

/** Errors after which the charge may well not be in MongoDB, and retrying it later is safe. */
function isRetryable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === DUPLICATE_KEY || classifyError(err).code === 'service_unavailable';
}

/**
 * The ledger as admission sees it. Under `commit`, charges go to MongoDB through the
 * group-commit writer and, when MongoDB is unreachable, to the durable local spool, from which
 * they are committed once it returns (idempotent by request id, so a charge that did reach
 * MongoDB is not charged again). Under `local`, every charge goes to the spool (one fdatasync
 * per group of charges) and the spool drains to MongoDB continuously. Either way the charge is
 * durable when `charge` resolves, so delivered work is never lost. `canCharge` says whether new
 * paid work may be admitted: under `commit`, only while MongoDB is writable and no process
 * holds spooled charges; under `local`, only while MongoDB is writable and no spool lags behind.
 * `settled` holds mirror rebuilds and reads of money figures until the charges acknowledged
 * before them are in MongoDB.
 */
export class SpoolingLedger {
  private readonly timer: NodeJS.Timeout;
  private draining = false;
  private lastAdopt = Date.now();
  private readonly ack: LedgerAck;
  private readonly tickMs: number;
  private readonly commitWaitMs: number;
  private readonly waiters = new Set<CommitWaiter>();
  private watch: NodeJS.Timeout | undefined;

  constructor(
    private readonly writer: LedgerWriter,
    private readonly spool: ChargeSpool,
    private readonly health: Pick<MongoHealth, 'writable'>,
    private readonly beacon: SpoolBeacon | undefined,
    private readonly log: Logger,
    options: SpoolingOptions = {},
  ) {
    this.ack = options.ack ?? 'commit';
    this.commitWaitMs = options.commitWaitMs ?? 5_000;
    this.tickMs = options.tickMs ?? (this.ack === 'local' ? 25 : 250);
    this.timer = setInterval(() => void this.tick(), this.tickMs);
    this.timer.unref();
  }

  /** Records a charge durably (MongoDB or spool); resolves with what it charged. */
  async charge(request: ChargeRequest): Promise<ChargeOutcome> {
    if (this.ack === 'local') return this.spoolCharge(request, false);
    if (!this.health.writable) return this.spoolCharge(request, true);
    const committed = this.writer.charge(request);
    committed.catch(() => undefined);
    try {
      const outcome = await this.firstOf(committed);
      if (outcome) return outcome;
    } catch (err) {
      if (!isRetryable(err)) throw err;
    }
    return this.spoolCharge(request, true);
  }

  /** True while new paid work may be admitted (its charge could commit now). */
  canCharge(): boolean {
    if (!this.health.writable) return false;
    if (this.ack === 'commit') return this.spool.size() === 0 && !this.beacon?.pendingElsewhere;
    const lagging = Date.now() - LOCAL_BACKLOG_MS;
    return (this.spool.oldest() ?? Infinity) > lagging && !this.beacon?.pendingElsewhereSince(lagging);
  }

  /**
   * Resolves once every charge acknowledged before now, by this process or another, is in
   * MongoDB, so a mirror rebuilt from it, or a balance read from it, next counts them all. Under `commit` that is at once
   * (a charge is acknowledged after its commit, or paid work is closed while any is spooled).
   * Under `local` it waits for this spool's drain and for every other process to say, after
   * now, that its older charges are drained; a 503 if that takes longer than a rebuild may wait.
   */
  async settled(): Promise<void> {
    if (this.ack === 'commit') return;
    const since = Date.now();
    const deadline = since + SETTLE_WAIT_MS;
    while (!this.settledSince(since)) {
      if (Date.now() > deadline) throw chargesUnavailable();
      await new Promise((resolve) => setTimeout(resolve, this.tickMs));
    }
  }

  private settledSince(since: number): boolean {
    const own = this.spool.oldest();
    if (own !== undefined && own <= since) return false;
    return !this.beacon || (this.beacon.heardFromAllSince(since) && !this.beacon.pendingElsewhereSince(since));
  }

  /** Whether MongoDB takes writes right now (as the driver's monitoring sees it). */
  get writable(): boolean {
    return this.health.writable;
  }

  /** Charges in this process's spool. */
  pending(): number {
    return this.spool.size();
  }

  /** When the oldest charge in this process's spool was spooled (see ChargeSpool.oldest). */
  oldestSpooled(): number | undefined {
    return this.spool.oldest();
  }

  /** Charges handed to MongoDB and not durable yet (neither committed nor spooled). */
  get committing(): number {
    return this.writer.pending;
  }

  /**
   * Commits what is queued and, if MongoDB is up, what is spooled (at shutdown); says how many
   * charges stay in the spool for a later process.
   */
  async drain(): Promise<{ spooled: number }> {
    clearInterval(this.timer);
    await this.writer.drain();
    if (this.health.writable) await this.drainSpool();
    // A drained open file is deleted; what is left is sealed for a later process to adopt.
    if (this.ack === 'local') await this.spool.seal();
    await this.exchange();
    return { spooled: this.spool.size() };
  }

  /**
   * The commit's outcome, or undefined once MongoDB is seen down or the wait is over. One
   * shared watch looks at every waiting charge each {@link WATCH_MS}, and only while some wait,
   * so a charge that commits at once costs no timer of its own.
   */
  private firstOf(committed: Promise<ChargeOutcome>): Promise<ChargeOutcome | undefined> {
    return new Promise((resolve, reject) => {
      const waiter: CommitWaiter = { deadline: Date.now() + this.commitWaitMs, giveUp: () => resolve(undefined) };
      this.waiters.add(waiter);
      if (this.watch === undefined) {
        this.watch = setInterval(() => this.watchWaiters(), WATCH_MS);
        this.watch.unref();
      }
      committed.then(
        (outcome) => {
          this.waiters.delete(waiter);
          resolve(outcome);
        },
        (err: unknown) => {
          this.waiters.delete(waiter);
          reject(err);
        },
      );
    });
  }

  /** Gives up on every waiting charge once MongoDB is seen down, and on each past its wait. */
  private watchWaiters(): void {
    const down = !this.health.writable;
    const now = Date.now();
    for (const waiter of this.waiters) {
      if (!down && now < waiter.deadline) continue;
      this.waiters.delete(waiter);
      waiter.giveUp();
    }
    if (this.waiters.size === 0) {
      clearInterval(this.watch);
      this.watch = undefined;
    }
  }

  /** Spools a charge; `outage`: MongoDB could not take it (worth a warning). */
  private async spoolCharge(request: ChargeRequest, outage: boolean): Promise<ChargeOutcome> {
    await this.spool.append(request);
    if (outage) this.log.warn({ request_id: request.requestId }, 'MongoDB unreachable: charge spooled until it returns');
    // Provisional: the balance covers it (the hold did); the commit records any absorption.
    const outcome: ChargeOutcome = { cost: request.cost, charged: request.cost, absorbed: 0n, duplicate: false };
    if (request.lines !== undefined) outcome.lines = request.lines;
    if (request.priceVersion !== undefined) outcome.priceVersion = request.priceVersion;
    return outcome;
  }

  private async tick(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      // Now and then, take over charges a crashed process left behind.
      if (Date.now() - this.lastAdopt >= ADOPT_EVERY_MS) {
        this.lastAdopt = Date.now();
        await this.spool.adopt();
      }
      if (this.spool.size() > 0 && this.health.writable) await this.drainSpool();
      await this.exchange();
    } catch (err) {
      this.log.warn({ err }, 'draining the charge spool failed; will retry');
    } finally {
      this.draining = false;
    }
  }

  /** Publishes this process's spool state (always under `local`, so rebuilds can wait for it). */
  private exchange(): Promise<void> | undefined {
    return this.beacon?.exchange(this.spool.oldest(), Date.now(), this.ack === 'local');
  }

  /**
   * Commits sealed segments, then, under `local`, the open segment's new charges without
   * sealing it (a new file per tick would cost a file, a lock and a directory sync each time).
   */
  private async drainSpool(): Promise<void> {
    const local = this.ack === 'local';
    for (const segment of local ? this.spool.sealedSegments() : await this.spool.seal()) {
      if (!(await this.commitAll(segment.charges))) return;
      await this.spool.done(segment);
      this.log.info({ charges: segment.charges.length }, 'spooled charges committed');
    }
    const tail = local ? this.spool.tail() : undefined;
    if (tail && (await this.commitAll(tail.charges))) await this.spool.tailDrained(tail.upTo, LOCAL_ROTATE_MS);
  }

  /** Commits charges through the writer; false when some must wait for a later try. */
  private async commitAll(charges: readonly ChargeRequest[]): Promise<boolean> {
    const results = await Promise.allSettled(charges.map((c) => this.writer.charge(c)));
    const failed = charges.filter((_, i) => results[i]?.status === 'rejected');
    if (failed.length === 0 || (await this.commitOneByOne(failed))) return true;
    this.log.warn({ failed: failed.length }, 'spooled charges not committed yet; will retry');
    return false;
  }

  /**
   * Commits charges one at a time, so one that can never commit (its account is gone) neither
   * blocks the rest nor keeps paid admission closed forever: it is set aside for an operator.
   * False when MongoDB trouble stopped the run (the segment is retried later).
   */
  private async commitOneByOne(charges: readonly ChargeRequest[]): Promise<boolean> {
    for (const charge of charges) {
      try {
        await this.writer.charge(charge);
      } catch (err) {
        if (isRetryable(err) || !this.health.writable) return false;
        await this.spool.setAside(charge);
        this.log.error({ err, request_id: charge.requestId }, 'spooled charge cannot be committed; set aside for an operator');
      }
    }
    return true;
  }
}

/** 503 for new paid work while charges cannot commit (MongoDB down or charges spooled). */
export function chargesUnavailable(): GatewayError {
  return new GatewayError('service_unavailable', 'Billing is briefly unavailable; retry shortly.', { retryAfterSeconds: 1 });
}
