import type { BilledUnits } from '../billing/pricing.js';
import type { RecordUsage } from './request-record-types.js';

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
  const input = sumOf(units, ['prompt', 'text_input', 'image_input']);
  const output = sumOf(units, ['completion', 'image_output']);
  if (input !== undefined) usage.input_tokens = input;
  if (output !== undefined) usage.output_tokens = output;
  if (typeof units.image === 'number') usage.images = units.image;
  if (typeof units.page === 'number') usage.pages = units.page;
  return usage;
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
  /** Error code of a failure reported inside a stream that had already answered 200. */
  failure: string | undefined;

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

  /** The stream failed after it started: the status stays 200, the record keeps the code. */
  failed(code: string): void {
    this.failure = code;
  }

  /** The charge is durable. */
  settled(cost: bigint, units: BilledUnits): void {
    this.cost = cost;
    this.units = units;
  }
}
