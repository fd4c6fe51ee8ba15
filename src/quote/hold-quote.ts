import { type BilledUnits, costLinesWire, type CostLineWire, formatUsd, priceUnits } from '../billing/index.js';
import type { CatalogModel } from '../catalog/index.js';

/** The worst case of a request, line by line, as a quote and a `max_cost_exceeded` show it. */
export interface HoldQuote {
  model: string;
  /** What admission holds (and the most the request can be charged), USD. */
  hold_usd: string;
  /** The hold's lines (units at their bounds, unit price, amount). */
  lines: CostLineWire[];
  price_version: string;
}

/** The quote of a hold: its own lines when given (a chat hold), else its units at list prices. */
export function holdQuote(model: CatalogModel, hold: bigint, units: BilledUnits, lines?: CostLineWire[]): HoldQuote {
  return { model: model.id, hold_usd: formatUsd(hold), lines: lines ?? costLinesWire(priceUnits(model, units).lines), price_version: model.priceVersion };
}
