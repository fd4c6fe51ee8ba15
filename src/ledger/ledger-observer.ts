/** What an observer learns about one batch (account ids are for tests, never metric labels). */
export interface LedgerBatch {
  /** Charges in the batch. */
  readonly charges: number;
  /** Distinct accounts the batch charges. */
  readonly accounts: readonly string[];
  /** Distinct keys the batch charges. */
  readonly keys: readonly string[];
}

/**
 * Hooks the ledger writer calls around each batch transaction, so metrics (and tests) see
 * batch sizes, commit latency and overlap without the ledger depending on a metrics library.
 * Hooks must not throw; an error from one is logged and ignored.
 */
export interface LedgerWriterObserver {
  /** A batch's transaction starts; `inFlight` counts it and the others still committing. */
  batchStarted?(batch: LedgerBatch, inFlight: number): void;
  /** A batch's transaction ended after `seconds` (retries included); `ok` false if it failed. */
  batchFinished?(batch: LedgerBatch, seconds: number, ok: boolean): void;
}

/** One observer that calls each of the given ones in turn. */
export function observeAll(...observers: readonly LedgerWriterObserver[]): LedgerWriterObserver {
  return {
    batchStarted: (batch, inFlight) => observers.forEach((o) => o.batchStarted?.(batch, inFlight)),
    batchFinished: (batch, seconds, ok) => observers.forEach((o) => o.batchFinished?.(batch, seconds, ok)),
  };
}
