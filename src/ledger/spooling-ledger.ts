import type { Logger } from 'pino';
import type { MongoHealth } from '../platform/db/index.js';
import { classifyError, GatewayError } from '../platform/errors/index.js';
import type { ChargeOutcome, ChargeRequest } from './apply-charges.js';
import type { ChargeSpool } from './charge-spool.js';
import type { LedgerWriter } from './ledger-writer.js';
import type { SpoolBeacon } from './spool-beacon.js';

/** Timing of the spooling ledger. */
export interface SpoolingOptions {
  /** Longest a charge waits for MongoDB before it is spooled instead. */
  readonly commitWaitMs?: number;
  /** How often the spool is drained and the beacon exchanged. */
  readonly tickMs?: number;
}

/** Ticks between looks for spool files of processes that died. */
const ADOPT_EVERY_TICKS = 20;

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
  return code === 11000 || classifyError(err).code === 'service_unavailable';
}

/**
 * The ledger as admission sees it: charges go to MongoDB through the group-commit writer and,
 * when MongoDB is unreachable, to the durable local spool, from which they are committed once
 * it returns (idempotent by request id, so a charge that did reach MongoDB is not charged
 * again). Either way the charge is durable when `charge` resolves, so delivered work is never
 * lost. `canCharge` says whether new paid work may be admitted: only while MongoDB is writable
 * and no process holds spooled charges (mirrors would otherwise be rebuilt without them).
 */
export class SpoolingLedger {
  private readonly timer: NodeJS.Timeout;
  private draining = false;
  private ticks = 0;
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
    this.commitWaitMs = options.commitWaitMs ?? 5_000;
    this.timer = setInterval(() => void this.tick(), options.tickMs ?? 250);
    this.timer.unref();
  }

  /** Records a charge durably (MongoDB or spool); resolves with what it charged. */
  async charge(request: ChargeRequest): Promise<ChargeOutcome> {
    if (!this.health.writable) return this.spoolCharge(request);
    const committed = this.writer.charge(request);
    committed.catch(() => undefined);
    try {
      const outcome = await this.firstOf(committed);
      if (outcome) return outcome;
    } catch (err) {
      if (!isRetryable(err)) throw err;
    }
    return this.spoolCharge(request);
  }

  /** True while new paid work may be admitted (its charge could commit now). */
  canCharge(): boolean {
    return this.health.writable && this.spool.size() === 0 && !this.beacon?.pendingElsewhere;
  }

  /** Whether MongoDB takes writes right now (as the driver's monitoring sees it). */
  get writable(): boolean {
    return this.health.writable;
  }

  /** Charges in this process's spool. */
  pending(): number {
    return this.spool.size();
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
    await this.beacon?.exchange(this.spool.size() > 0, Date.now());
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

  private async spoolCharge(request: ChargeRequest): Promise<ChargeOutcome> {
    await this.spool.append(request);
    this.log.warn({ request_id: request.requestId }, 'MongoDB unreachable: charge spooled until it returns');
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
      if (++this.ticks % ADOPT_EVERY_TICKS === 0) await this.spool.adopt();
      if (this.spool.size() > 0 && this.health.writable) await this.drainSpool();
      await this.beacon?.exchange(this.spool.size() > 0, Date.now());
    } catch (err) {
      this.log.warn({ err }, 'draining the charge spool failed; will retry');
    } finally {
      this.draining = false;
    }
  }

  private async drainSpool(): Promise<void> {
    for (const segment of await this.spool.seal()) {
      const results = await Promise.allSettled(segment.charges.map((c) => this.writer.charge(c)));
      const failed = segment.charges.filter((_, i) => results[i]?.status === 'rejected');
      if (failed.length > 0 && !(await this.commitOneByOne(failed))) {
        this.log.warn({ failed: failed.length }, 'spooled charges not committed yet; will retry');
        return;
      }
      await this.spool.done(segment);
      this.log.info({ charges: segment.charges.length }, 'spooled charges committed');
    }
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
