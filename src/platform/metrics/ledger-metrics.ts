import { Gauge, Histogram, type Registry } from 'prom-client';
import type { LedgerBatch, LedgerWriterObserver } from '../../ledger/index.js';

/**
 * Ledger metrics: commit latency and size of each group-commit batch, and the charges waiting
 * in the local spool for MongoDB (read on scrape). Observes the writer through its observer
 * hooks, so the ledger itself does not depend on the metrics library.
 */
export class LedgerMetrics implements LedgerWriterObserver {
  private readonly commitSeconds: Histogram;
  private readonly batchCharges: Histogram;
  private spoolSize: (() => number) | undefined;

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
    const read = () => this.spoolSize?.() ?? 0;
    new Gauge({
      name: 'farebox_ledger_spooled_charges',
      help: 'Charges in the local spool waiting for MongoDB',
      registers,
      collect() {
        this.set(read());
      },
    });
  }

  /** Reports the spool's size on each scrape. */
  watchSpool(size: () => number): void {
    this.spoolSize = size;
  }

  /** A batch committed (or failed: only committed batches are timed, failures are not commits). */
  batchFinished(batch: LedgerBatch, seconds: number, ok: boolean): void {
    if (!ok) return;
    this.commitSeconds.observe(seconds);
    this.batchCharges.observe(batch.charges);
  }
}
