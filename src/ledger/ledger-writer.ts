import type { ClientSession, MongoClient } from 'mongodb';
import { GatewayError } from '../platform/errors/index.js';
import type { Logger } from 'pino';
import type { LedgerDoc } from './ledger-types.js';
import { AlreadyCharged, applyCharges, type ChargeOutcome, type ChargeRequest, type ChargeStore, type DuplicateCheck } from './apply-charges.js';
import { BatchCommands } from './batch-commands.js';
import { BatchLanes, lanesOf } from './batch-lanes.js';
import type { ChainHead } from './ledger-chain.js';
import type { LedgerWriterObserver, LedgerBatch } from './ledger-observer.js';
import type { AccountCollections, KeyCollections } from '../accounts/index.js';
import type { LedgerCollections } from './ledger-collection.js';
import { ORPHAN_IDLE_MS, OrphanedTransactions, sessionHex } from './orphaned-transactions.js';

export type { ChargeOutcome, ChargeRequest } from './apply-charges.js';
export type { LedgerBatch, LedgerWriterObserver } from './ledger-observer.js';

/** Charges waiting that justify a second transaction in flight (see LedgerWriterOptions.parallelAt). */
const DEFAULT_PARALLEL_AT = 64;

/** How long a batch may take before the writer looks for transactions a dead process left open. */
const DEFAULT_REAP_AFTER_MS = 2_000;

/** How long a batch commits before the writer warns that it is slow. */
const SLOW_BATCH_MS = 10_000;

/**
 * Longest a batch may hold its charges: past it they are given back as a 503 (a waiting
 * request spools its charge, the spool's drain tries again) and the batch's accounts are free
 * for the next one. A commit takes milliseconds and a failover seconds; one batch that never
 * ends must not hold every charge of the process, and with them paid admission everywhere.
 */
const DEFAULT_DEADLINE_MS = 30_000;

/** Most accounts whose chain head a writer remembers. */
const MAX_HEAD_HINTS = 100_000;

interface Pending {
  request: ChargeRequest;
  /** The documents it writes besides its entry (see `lanesOf`), named once. */
  lanes: string[];
  resolve: (outcome: ChargeOutcome) => void;
  reject: (err: unknown) => void;
}

/** How far a batch's transaction got: attempts started, and the step of the last one. */
interface BatchProgress {
  attempts: number;
  step: 'starting' | 'writing' | 'committing';
}

/** Tuning of the group commit. */
export interface LedgerWriterOptions {
  /** Most charges committed in one transaction. */
  maxBatch?: number;
  /**
   * How long the first charge of a batch waits for company while no batch is in flight;
   * default 0: charges of the same turn of the event loop still share it. Charges arriving
   * while a batch commits wait for it and go in the next one together.
   */
  maxDelayMs?: number;
  /** Most batch transactions in flight at once (batches in flight never share an account). */
  maxConcurrent?: number;
  /**
   * Charges that must be waiting before a batch starts beside one already in flight (at most
   * `maxBatch`). Fewer wait for the commit in flight and go in the next batch together.
   */
  parallelAt?: number;
  /** Told about every batch (metrics). */
  observer?: LedgerWriterObserver;
  /**
   * How long a batch may take before the writer looks for (and aborts) transactions left open
   * by a process that died mid-commit, and again at that interval while the batch lasts; 0
   * never looks. See OrphanedTransactions.
   */
  reapAfterMs?: number;
  /** How long a transaction must have been idle to count as left behind. */
  orphanIdleMs?: number;
  /** See DEFAULT_DEADLINE_MS; 0 never gives up. */
  deadlineMs?: number;
}

/**
 * Group-commit writer for charges. Charges arriving within a few milliseconds share one
 * MongoDB transaction (the accounts' balances, one insert of the entries, one update of the
 * spend increments); each caller's promise resolves only after that transaction committed, so a
 * cost is durable before it is reported. Charges are idempotent by request id.
 *
 * Several batches may commit at once when enough charges wait, so a burst need not queue
 * behind one commit, but batches in flight never share an account or key: a charge whose account is being
 * committed waits for that batch, so each account's charges apply in arrival order (the
 * balance floor and `absorbed` come out as if every charge ran alone) and concurrent
 * transactions do not write the same documents.
 */
export class LedgerWriter {
  private queue: Pending[] = [];
  /** The launch scheduled, if any: how to cancel it, and whether it runs this turn. */
  private scheduled: { cancel(): void; immediate: boolean } | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly lanes = new BatchLanes();
  /** Chain heads this writer committed last, per account (a hint; MongoDB checks it). */
  private readonly heads = new Map<string, ChainHead>();
  private committing = 0;
  private readonly maxBatch: number;
  private readonly maxDelayMs: number;
  private readonly maxConcurrent: number;
  private readonly parallelAt: number;
  private readonly observer: LedgerWriterObserver | undefined;
  private readonly reapAfterMs: number;
  private readonly deadlineMs: number;
  private readonly orphans: OrphanedTransactions;
  private readonly store: ChargeStore;
  /** Batches in flight past `reapAfterMs` (see `launch`). */
  private readonly stalled = new Set<BatchProgress>();
  /** Sessions of batches in flight. */
  private readonly sessions = new Set<ClientSession>();

  constructor(
    private readonly client: MongoClient,
    c: AccountCollections & KeyCollections & LedgerCollections,
    private readonly log: Logger,
    options: LedgerWriterOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 2_000;
    this.maxDelayMs = options.maxDelayMs ?? 0;
    this.maxConcurrent = Math.max(1, options.maxConcurrent ?? 4);
    this.parallelAt = Math.max(1, Math.min(this.maxBatch, options.parallelAt ?? DEFAULT_PARALLEL_AT));
    this.observer = options.observer;
    this.reapAfterMs = Math.max(0, options.reapAfterMs ?? DEFAULT_REAP_AFTER_MS);
    this.deadlineMs = Math.max(0, options.deadlineMs ?? DEFAULT_DEADLINE_MS);
    this.orphans = new OrphanedTransactions(client, log, options.orphanIdleMs ?? ORPHAN_IDLE_MS);
    this.store = { c, commands: new BatchCommands(client.db(c.ledger.dbName)) };
  }

  /** Records a charge; resolves with what was charged once it is durable. */
  charge(request: ChargeRequest): Promise<ChargeOutcome> {
    return new Promise<ChargeOutcome>((resolve, reject) => {
      this.queue.push({ request, lanes: lanesOf(request), resolve, reject });
      if (this.queue.length >= this.maxBatch) this.flushSoon(0);
      else this.flushSoon(this.maxDelayMs);
    });
  }

  /** Charges accepted but not yet durable (queued or in a batch being committed). */
  get pending(): number {
    return this.queue.length + this.committing;
  }

  /** Commits everything queued and waits for it (used at shutdown). */
  async drain(): Promise<void> {
    this.scheduled?.cancel();
    this.scheduled = undefined;
    while (this.queue.length > 0 || this.inFlight.size > 0) {
      this.launch();
      await Promise.all(this.inFlight);
    }
  }

  private flushSoon(delayMs: number): void {
    if (this.scheduled && (this.scheduled.immediate || delayMs > 0)) return;
    this.scheduled?.cancel();
    const flush = (): void => {
      this.scheduled = undefined;
      this.launch();
    };
    // setTimeout(0) waits a millisecond; setImmediate runs once this turn's callbacks are done.
    if (delayMs > 0) {
      const timer = setTimeout(flush, delayMs);
      this.scheduled = { cancel: () => clearTimeout(timer), immediate: false };
    } else {
      const immediate = setImmediate(flush);
      this.scheduled = { cancel: () => clearImmediate(immediate), immediate: true };
    }
  }

  /**
   * Starts batches while a transaction slot is free and some queued charge may go. A batch
   * starts beside others only when enough charges wait: under an even trickle of charges, a
   * transaction for every two or three of them cost more CPU in this process and in MongoDB
   * than the wait for the commit in flight, and made the tail longer, not shorter. Nor need
   * they wait once every batch in flight is stalled (past `reapAfterMs`, e.g. a command lost
   * with a dying primary): charges of other accounts then go beside them.
   */
  private launch(): void {
    const mayAdd = (): boolean => this.inFlight.size === 0 || this.queue.length >= this.parallelAt || this.stalled.size >= this.inFlight.size;
    while (this.inFlight.size < this.maxConcurrent && this.queue.length > 0 && mayAdd()) {
      const batch = this.takeBatch();
      if (batch.length === 0) return;
      this.start(batch);
    }
  }

  /**
   * Takes queued charges, oldest first, whose account and key no batch in flight holds. A
   * charge left behind blocks its account and key for the rest of this pass, so no later
   * charge of the same account overtakes it.
   */
  private takeBatch(): Pending[] {
    const taken: Pending[] = [];
    const rest: Pending[] = [];
    const blocked = new Set<string>();
    let i = 0;
    for (; i < this.queue.length && taken.length < this.maxBatch; i++) {
      const p = this.queue[i]!;
      if (!this.lanes.busy(p.lanes) && !p.lanes.some((l) => blocked.has(l))) taken.push(p);
      else {
        rest.push(p);
        for (const l of p.lanes) blocked.add(l);
      }
    }
    if (taken.length === 0) return taken;
    this.queue = i < this.queue.length ? rest.concat(this.queue.slice(i)) : rest;
    return taken;
  }

  private start(batch: Pending[]): void {
    const lanes = this.lanes.claim(batch.flatMap((p) => p.lanes));
    this.committing += batch.length;
    const info: LedgerBatch = {
      charges: batch.length,
      accounts: [...new Set(batch.map((p) => p.request.accountId))],
      keys: [...new Set(batch.map((p) => p.request.keyId))],
    };
    this.notify(() => this.observer?.batchStarted?.(info, this.inFlight.size + 1));
    const run = this.commit(batch, info).finally(() => {
      this.lanes.release(lanes);
      this.committing -= batch.length;
      this.inFlight.delete(run);
      // Charges that waited for this batch's account have had their company already.
      if (this.queue.length > 0) this.launch();
    });
    this.inFlight.add(run);
  }

  /**
   * What runs every `reapAfterMs` while a batch commits: ends transactions a dead process left
   * open, counts the batch as stalled (charges of other accounts may start beside it), and
   * says at {@link SLOW_BATCH_MS}, then at each doubling, how far the batch got, since the
   * charges of its accounts (spooled ones included) wait for it.
   */
  private overdue(size: number, started: number, progress: BatchProgress): () => void {
    let warnAt = SLOW_BATCH_MS;
    return () => {
      void this.orphans.reap(this.ownSessions());
      if (!this.stalled.has(progress)) {
        this.stalled.add(progress);
        this.launch();
      }
      const ms = performance.now() - started;
      if (ms < warnAt) return;
      warnAt *= 2;
      this.log.warn({ size, ms: Math.round(ms), ...progress }, 'ledger batch still committing');
    };
  }

  /** The ids of this writer's sessions in use, which the reaper must never kill. */
  private ownSessions(): Set<string> {
    return new Set([...this.sessions].map((s) => sessionHex(s.id)));
  }

  private async commit(batch: Pending[], info: LedgerBatch): Promise<void> {
    const session: ClientSession = this.client.startSession();
    this.sessions.add(session);
    const started = performance.now();
    // A batch that takes long may be retrying against a transaction a dead process left open
    // on the same account or key: end that one rather than wait out MongoDB's one-minute limit.
    const progress: BatchProgress = { attempts: 0, step: 'starting' };
    const overdue = this.overdue(batch.length, started, progress);
    const reaper = this.reapAfterMs > 0 ? setInterval(overdue, this.reapAfterMs) : undefined;
    reaper?.unref();
    const run = this.transact(session, batch.map((p) => p.request), progress);
    try {
      const outcomes = await this.untilDeadline(run, progress);
      this.rememberHeads(batch, outcomes);
      this.notify(() => this.observer?.batchFinished?.(info, (performance.now() - started) / 1000, true));
      for (const p of batch) {
        const outcome = outcomes.get(p.request.requestId);
        if (outcome) p.resolve(outcome);
        else p.reject(new Error(`charge ${p.request.requestId} missing from batch result`));
      }
    } catch (err) {
      this.notify(() => this.observer?.batchFinished?.(info, (performance.now() - started) / 1000, false));
      this.log.error({ err, size: batch.length, ...progress }, 'ledger batch failed');
      for (const p of batch) p.reject(err);
    } finally {
      clearInterval(reaper);
      this.stalled.delete(progress);
      // A batch given up on may still be running: no longer this writer's, the reaper may end
      // its transaction like any left open (a late commit would meet the retried charges'
      // entries and fail as a duplicate), and its session ends whenever it does.
      this.sessions.delete(session);
      void run.finally(() => session.endSession()).catch(() => undefined);
    }
  }

  /** The batch's outcome, or a 503 once it has run {@link DEFAULT_DEADLINE_MS} (see there). */
  private untilDeadline<T>(run: Promise<T>, progress: BatchProgress): Promise<T> {
    if (this.deadlineMs === 0) return run;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new GatewayError('service_unavailable', `ledger batch given up after ${this.deadlineMs} ms (${progress.step}, attempt ${progress.attempts})`, { retryAfterSeconds: 1 })), this.deadlineMs);
    });
    return Promise.race([run, deadline]).finally(() => clearTimeout(timer));
  }

  /**
   * One durable transaction for the batch. withTransaction retries TransientTransactionError
   * (a write conflict, e.g. with another process charging the same account) and an unknown
   * commit result; each attempt recomputes the outcomes from what it reads. The ledger is not
   * read first unless the batch turns out to hold a request id already charged.
   */
  private async transact(session: ClientSession, requests: ChargeRequest[], progress: BatchProgress): Promise<Map<string, ChargeOutcome>> {
    let outcomes = new Map<string, ChargeOutcome>();
    let check: DuplicateCheck = 'on-conflict';
    for (;;) {
      try {
        await session.withTransaction(
          async () => {
            progress.attempts++;
            progress.step = 'writing';
            outcomes = await applyCharges(this.store, session, requests, check, this.heads);
            progress.step = 'committing';
          },
          { writeConcern: { w: 'majority', journal: true } },
        );
        return outcomes;
      } catch (err) {
        if (!(err instanceof AlreadyCharged) || check === 'read-first') throw err;
        check = 'read-first';
      }
    }
  }

  /** Keeps the last chain link each account got from this batch, for the next batch's guess. */
  private rememberHeads(batch: readonly Pending[], outcomes: ReadonlyMap<string, ChargeOutcome>): void {
    // Bounded: a forgotten hint only costs its account one round trip on its next batch.
    if (this.heads.size > MAX_HEAD_HINTS) this.heads.clear();
    for (const p of batch) {
      const o = outcomes.get(p.request.requestId);
      if (o && !o.duplicate && o.seq !== undefined && o.hash !== undefined) this.heads.set(p.request.accountId, { seq: o.seq, hash: o.hash });
    }
  }

  /** Runs an observer hook; a failing hook must never fail (or un-resolve) a committed batch. */
  private notify(hook: () => void): void {
    try {
      hook();
    } catch (err) {
      this.log.warn({ err }, 'ledger observer failed');
    }
  }
}

/** Reads one charge back (e.g. to confirm idempotency in tests and tools). */
export function findCharge(c: LedgerCollections, requestId: string): Promise<LedgerDoc | null> {
  return c.ledger.findOne({ _id: requestId });
}
