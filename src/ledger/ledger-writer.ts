import type { ClientSession, MongoClient } from 'mongodb';
import type { Logger } from 'pino';
import type { Collections } from '../db/collections.js';
import type { LedgerDoc } from './ledger-types.js';
import { applyCharges, type ChargeOutcome, type ChargeRequest } from './apply-charges.js';

export type { ChargeOutcome, ChargeRequest } from './apply-charges.js';

interface Pending {
  request: ChargeRequest;
  resolve: (outcome: ChargeOutcome) => void;
  reject: (err: unknown) => void;
}

/** Tuning of the group commit. */
export interface LedgerWriterOptions {
  /** Most charges committed in one transaction. */
  maxBatch?: number;
  /** How long the first charge of a batch waits for company. */
  maxDelayMs?: number;
}

/**
 * Group-commit writer for charges. Charges arriving within a few milliseconds share one
 * MongoDB transaction (one insertMany of entries, one bulkWrite of balance and spend
 * increments); each caller's promise resolves only after that transaction committed, so a
 * cost is durable before it is reported. Charges are idempotent by request id.
 */
export class LedgerWriter {
  private queue: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> = Promise.resolve();
  private committing = 0;
  private readonly maxBatch: number;
  private readonly maxDelayMs: number;

  constructor(
    private readonly client: MongoClient,
    private readonly c: Collections,
    private readonly log: Logger,
    options: LedgerWriterOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 2_000;
    this.maxDelayMs = options.maxDelayMs ?? 2;
  }

  /** Records a charge; resolves with what was charged once it is durable. */
  charge(request: ChargeRequest): Promise<ChargeOutcome> {
    return new Promise<ChargeOutcome>((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
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
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.queue.length > 0) await this.runNext();
    await this.inFlight;
  }

  private flushSoon(delayMs: number): void {
    if (this.timer && delayMs > 0) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.runNext();
    }, delayMs);
  }

  /** Batches run one after another, so a batch never races the next one on the same account. */
  private runNext(): Promise<void> {
    this.inFlight = this.inFlight.then(async () => {
      const batch = this.queue.splice(0, this.maxBatch);
      this.committing = batch.length;
      try {
        if (batch.length > 0) await this.commit(batch);
      } finally {
        this.committing = 0;
      }
      if (this.queue.length > 0) this.flushSoon(this.maxDelayMs);
    });
    return this.inFlight;
  }

  private async commit(batch: Pending[]): Promise<void> {
    const session: ClientSession = this.client.startSession();
    try {
      let outcomes = new Map<string, ChargeOutcome>();
      await session.withTransaction(
        async () => {
          outcomes = await applyCharges(this.c, session, batch.map((p) => p.request));
        },
        { writeConcern: { w: 'majority', journal: true } },
      );
      for (const p of batch) {
        const outcome = outcomes.get(p.request.requestId);
        if (outcome) p.resolve(outcome);
        else p.reject(new Error(`charge ${p.request.requestId} missing from batch result`));
      }
    } catch (err) {
      this.log.error({ err, size: batch.length }, 'ledger batch failed');
      for (const p of batch) p.reject(err);
    } finally {
      await session.endSession();
    }
  }
}

/** Reads one charge back (e.g. to confirm idempotency in tests and tools). */
export function findCharge(c: Collections, requestId: string): Promise<LedgerDoc | null> {
  return c.ledger.findOne({ _id: requestId });
}
