import type { ChargeOutcome } from '../ledger-writer.js';
import type { BilledUnits, CostLineWire, TokenSource } from '../../billing/index.js';
import type { AttemptRecord, RecordUsage } from './request-record-types.js';
import type { EndUserNaming } from './end-user-source.js';

/** Sum of the defined counts among `keys`, or undefined when none is defined. */
function sumOf(units: BilledUnits, keys: ReadonlyArray<keyof BilledUnits>): number | undefined {
  let total: number | undefined;
  for (const k of keys) {
    const v = units[k];
    if (typeof v === 'number') total = (total ?? 0) + v;
  }
  return total;
}

/** Billed units in the record's terms: tokens in and out, images, pages. */
export function usageOf(units: BilledUnits): RecordUsage {
  const usage: RecordUsage = {};
  const input = sumOf(units, ['prompt', 'input_cache_read', 'input_cache_write', 'input_cache_write_1h', 'text_input', 'image_input']);
  const output = sumOf(units, ['completion', 'internal_reasoning', 'image_output']);
  if (input !== undefined) usage.input_tokens = input;
  if (output !== undefined) usage.output_tokens = output;
  if (typeof units.image === 'number') usage.images = units.image;
  if (typeof units.page === 'number') usage.pages = units.page;
  return usage;
}

/** The lines of a charge and the version of the prices it used. */
export interface ChargeBill {
  lines: CostLineWire[];
  priceVersion: string | null;
}

/**
 * What the pipeline learns about a request while it runs: the model and provider once
 * admission sees them, the cost and units once the charge is durable.
 */
export class RecordDraft {
  model: string | undefined;
  provider: string | undefined;
  stream: boolean | undefined;
  cost = 0n;
  units: BilledUnits | undefined;
  /** The billed components and the prices' version, once charged. */
  bill: ChargeBill | undefined;
  /** Error code of a failure reported inside a stream that had already answered 200. */
  failure: string | undefined;
  /** What the ledger recorded for the charge (absent until settled). */
  charge: ChargeOutcome | undefined;
  tokenSource: TokenSource = 'upstream';
  settledAt: Date | undefined;
  /** The routes tried or skipped, in order. */
  readonly attempts: AttemptRecord[] = [];
  /** Reads the end user the request names, once its body is parsed (see `endUserOf`). */
  endUserSource: () => EndUserNaming = () => ({ param: 'user' });
  /** The end user admission saw, for the record. */
  endUser: string | undefined;
  /** The request whose stored answer this one was served from (an exact cache hit). */
  cacheHitOf: string | undefined;

  constructor(
    readonly requestId: string,
    readonly endpoint: string,
    readonly createdAt: Date,
    readonly startedMs: number,
  ) {}

  /** Admission saw the request: its catalog model, provider and whether it streams. */
  admitted(model: string, provider: string, stream: boolean): void {
    this.model = model;
    this.provider = provider;
    this.stream = stream;
  }

  /** A route was tried or skipped. */
  attempted(attempt: AttemptRecord): void {
    this.attempts.push(attempt);
  }

  /** A route answered: the record names its model and provider. */
  answeredBy(model: string, provider: string): void {
    this.model = model;
    this.provider = provider;
  }

  /** The stream failed after it started: the status stays 200, the record keeps the code. */
  failed(code: string): void {
    this.failure = code;
  }

  /** The charge is durable: what it billed (never above the hold), its units and lines, and where the counts came from. */
  settled(outcome: ChargeOutcome, units: BilledUnits, tokenSource: TokenSource = 'upstream'): void {
    this.cost = outcome.cost;
    this.units = units;
    this.charge = outcome;
    this.tokenSource = tokenSource;
    this.settledAt = new Date();
    if (outcome.lines !== undefined) this.bill = { lines: outcome.lines, priceVersion: outcome.priceVersion ?? null };
  }
}

/** Where open drafts are found by request id. */
export interface DraftLookup {
  draft(requestId: string): RecordDraft | undefined;
}
