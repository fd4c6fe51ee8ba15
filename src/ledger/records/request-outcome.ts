import type { RecordUsage } from './request-record-types.js';

/** A finished inference request as the outcome metrics see it; labels already bounded. */
export interface RequestOutcome {
  endpoint: string;
  /** Catalog id or `other`. */
  model: string;
  /** Provider id of a catalog model or `other`. */
  provider: string;
  status: number;
  /** Error code from the error table, or undefined for a success. */
  code: string | undefined;
  usage: RecordUsage;
  /** Metered cost, nano-USD. */
  cost: bigint;
}

/** Whatever counts finished requests (the process's outcome metrics). */
export interface OutcomeObserver {
  finished(outcome: RequestOutcome): void;
}
