import { Gauge, Histogram, type Registry } from 'prom-client';
import type { LedgerBatch, LedgerWriterObserver } from '../ledger/index.js';

/** What a scrape reads of the ledger's state (see SpoolingLedger). */
export interface LedgerState {
  /** Charges in this process's spool. */
  pending(): number;
  /** When the oldest of them was spooled (ms; 0 when adopted from a stopped process). */
  oldestSpooled(): number | undefined;
  /** Charges handed to MongoDB and not durable yet. */
  readonly committing: number;
  /** Whether MongoDB takes writes, as the driver's monitoring sees it. */
  readonly writable: boolean;
}

/**
 * Ledger metrics: commit latency and size of each group-commit batch, and what waits for
 * MongoDB (read on scrape): the charges in the local spool and the age of the oldest, the
 * charges being committed, and whether MongoDB is seen writable. A spool that keeps a charge
 * while MongoDB is writable is a drain that is stuck: worth an alert. Observes the writer through its observer
 * hooks, so the ledger itself does not depend on the metrics library.
 */
export class LedgerMetrics implements LedgerWriterObserver {
  private readonly commitSeconds: Histogram;
  private readonly batchCharges: Histogram;
  private state: LedgerState | undefined;

  constructor(registry: Registry) {
    const registers = [registry];
    this.commitSeconds = new Histogram({
      name: 'farebox_ledger_commit_seconds',
      help: 'Time to commit one batch of charges durably (majority, journaled transaction, retries included)',
      buckets: [0.002, 0.005, 0.01, 0.015, 0.02, 0.03, 0.05, 0.075, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
    this.batchCharges = new Histogram({
      name: 'farebox_ledger_batch_charges',
      help: 'Charges committed in one ledger batch',
      buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000],
      registers,
    });
    const current = () => this.state;
    const gauge = (name: string, help: string, read: (state: LedgerState) => number): void => {
      new Gauge({
        name,
        help,
        registers,
        collect() {
          const state = current();
          this.set(state ? read(state) : 0);
        },
      });
    };
    gauge('farebox_ledger_spooled_charges', 'Charges in the local spool waiting for MongoDB', (s) => s.pending());
    gauge('farebox_ledger_spool_oldest_seconds', 'Age of the oldest charge in the local spool (0 when none)', (s) => {
      const oldest = s.oldestSpooled();
      return oldest === undefined || oldest === 0 ? 0 : (Date.now() - oldest) / 1000;
    });
    gauge('farebox_ledger_committing_charges', 'Charges handed to MongoDB and not yet durable', (s) => s.committing);
    gauge('farebox_mongo_writable', '1 while the driver knows a writable MongoDB primary', (s) => (s.writable ? 1 : 0));
  }

  /** Reads the ledger's state on each scrape. */
  watch(state: LedgerState): void {
    this.state = state;
  }

  /** A batch committed (or failed: only committed batches are timed, failures are not commits). */
  batchFinished(batch: LedgerBatch, seconds: number, ok: boolean): void {
    if (!ok) return;
    this.commitSeconds.observe(seconds);
    this.batchCharges.observe(batch.charges);
  }
}
