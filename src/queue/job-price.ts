import {
  type BilledUnits,
  costLinesWire,
  type CostLineWire,
  type ImageCounts,
  imageUnits,
  ocrUnits,
  priceUnits,
} from '../billing/index.js';
import { pricedModel } from './job-model.js';
import type { JobModel } from './job-types.js';

/** A job's output priced at the answering route's prices: its units, cost and billed lines. */
export interface JobPrice {
  readonly units: BilledUnits;
  /** Metered cost in nano-USD, as a decimal string (JSON has no bigint). */
  readonly cost: string;
  /** The billed components, as the ledger and the receipt show them. */
  readonly lines: CostLineWire[];
}

/**
 * Prices a job's units once, where it is metered (the worker): the web charges these lines
 * as they are rather than pricing the units again.
 */
export function priceJob(route: JobModel, units: BilledUnits): JobPrice {
  const bill = priceUnits(pricedModel(route), units);
  return { units, cost: bill.cost.toString(), lines: costLinesWire(bill.lines) };
}

/** An image job's price: per image, or per token for a token-priced model. */
export function imagePrice(route: JobModel, usage: ImageCounts): JobPrice {
  return priceJob(route, imageUnits(pricedModel(route), usage));
}

/** An OCR job's price: per page processed. */
export function ocrPrice(route: JobModel, pagesProcessed: number): JobPrice {
  return priceJob(route, ocrUnits(pagesProcessed));
}
