import { attoToNano, attoUsd, formatUsd, type Atto, type Nano } from './money.js';
import type { PriceKey } from './price-keys.js';

export { PRICE_KEYS, type PriceKey } from './price-keys.js';

/** Something with prices (a catalog model): atto-USD per unit, exact, by price key. */
export interface Priced {
  readonly prices: Readonly<Partial<Record<PriceKey, bigint>>>;
}

/** What a chat request used, normalized from any vendor's report (see TokenUsage in the providers). */
export interface ChatCounts {
  /** Every input token: plain, cache reads and cache writes. */
  readonly promptTokens: number;
  /** Every output token, reasoning included. */
  readonly completionTokens: number;
  /** Part of `completionTokens`. */
  readonly reasoningTokens?: number;
  /** Parts of `promptTokens`. */
  readonly cachedTokens?: number;
  readonly cacheWriteTokens?: number;
  readonly cacheWrite1hTokens?: number;
  readonly webSearches?: number;
}

/** What an image request used, as image adapters report it. */
export interface ImageCounts {
  readonly images: number;
  readonly textInputTokens: number;
  readonly imageInputTokens: number;
  readonly imageOutputTokens: number;
}

/** Units consumed, by the price key that prices them. */
export type BilledUnits = Partial<Record<PriceKey, number>>;

/**
 * A key that refines another is priced like it when the catalog leaves it out, so a unit is
 * never billed at $0 by omission: reasoning like output, cache reads and writes like input.
 */
const FALLBACK: Readonly<Partial<Record<PriceKey, PriceKey>>> = {
  internal_reasoning: 'completion',
  input_cache_read: 'prompt',
  input_cache_write: 'prompt',
  input_cache_write_1h: 'input_cache_write',
};

/** Keys that cost nothing when unpriced: a per-call fee exists only where a catalog sets one. */
const ZERO_WHEN_UNPRICED: ReadonlySet<PriceKey> = new Set(['request']);

/** The unit price of a key (following its fallback), or undefined when nothing prices it. */
export function unitPrice(model: Priced, key: PriceKey): Atto | undefined {
  for (let k: PriceKey | undefined = key; k !== undefined; k = FALLBACK[k]) {
    const price = model.prices[k];
    if (price !== undefined) return price;
  }
  return ZERO_WHEN_UNPRICED.has(key) ? 0n : undefined;
}

/** One billed component: its units, its unit price and what they cost. */
export interface CostLine {
  readonly component: PriceKey;
  readonly units: number;
  /** USD per unit, atto-USD. */
  readonly unitPrice: Atto;
  /** The component's amount, rounded half up to nano-USD once. */
  readonly amount: Nano;
}

/** A priced bill: its lines, their exact sum, and units nothing prices. */
export interface Bill {
  readonly lines: CostLine[];
  /** Sum of the lines' amounts, nano-USD: what the request costs. */
  readonly cost: Nano;
  /** Components with units but no price (an operator error; never silently free). */
  readonly unpriced: PriceKey[];
}

/** Whole units of a count (a fraction of a unit is billed as a whole one). */
function wholeUnits(count: number | undefined): number {
  return count === undefined || !(count > 0) ? 0 : Math.ceil(count);
}

/**
 * Prices units at a model's prices, one line per component with units, plus the model's
 * per-call fee when it has one. Each line is exact in atto-USD and rounded once to nano-USD;
 * the cost is the sum of the lines, so the lines a client sees always add up to the cost it
 * is billed.
 */
export function priceUnits(model: Priced, units: BilledUnits): Bill {
  const lines: CostLine[] = [];
  const unpriced: PriceKey[] = [];
  let cost = 0n;
  const all = model.prices.request !== undefined && units.request === undefined ? { ...units, request: 1 } : units;
  for (const [component, count] of Object.entries(all) as Array<[PriceKey, number | undefined]>) {
    const n = wholeUnits(count);
    if (n === 0) continue;
    const price = unitPrice(model, component);
    if (price === undefined) {
      unpriced.push(component);
      continue;
    }
    const amount = attoToNano(price * BigInt(n));
    lines.push({ component, units: n, unitPrice: price, amount });
    cost += amount;
  }
  return { lines, cost, unpriced };
}

/** Exact cost of some units at a model's prices (the sum of {@link priceUnits}' lines). */
export function costOf(model: Priced, units: BilledUnits): Nano {
  return priceUnits(model, units).cost;
}

/** A cost line as clients and the ledger see it (USD as exact decimal strings). */
export interface CostLineWire {
  /** A price key, or `upstream_over_limit` for metered cost beyond the hold taken off the bill. */
  component: string;
  units: number;
  unit_price_usd: string;
  amount_usd: string;
}

/** The wire form of cost lines. */
export function costLinesWire(lines: readonly CostLine[]): CostLineWire[] {
  return lines.map((l) => ({ component: l.component, units: l.units, unit_price_usd: attoUsd(l.unitPrice), amount_usd: formatUsd(l.amount) }));
}

/**
 * Chat units from usage: input split into plain, cache-read and cache-write tokens; output
 * into visible and reasoning tokens; plus server-side searches and the call itself. Counts
 * are the adapters' normalized ones (see TokenUsage), whatever the vendor reported.
 */
export function chatUnits(usage: ChatCounts): BilledUnits {
  const cached = usage.cachedTokens ?? 0;
  const writes = usage.cacheWriteTokens ?? 0;
  const writes1h = usage.cacheWrite1hTokens ?? 0;
  const reasoning = Math.min(usage.reasoningTokens ?? 0, usage.completionTokens);
  const units: BilledUnits = { prompt: Math.max(0, usage.promptTokens - cached - writes - writes1h), completion: usage.completionTokens - reasoning };
  const parts: Array<[PriceKey, number]> = [
    ['internal_reasoning', reasoning],
    ['input_cache_read', cached],
    ['input_cache_write', writes],
    ['input_cache_write_1h', writes1h],
    ['web_search', usage.webSearches ?? 0],
  ];
  for (const [key, count] of parts) if (count > 0) units[key] = count;
  return units;
}

/** Image units: token-priced models (gpt-image) bill tokens, the others bill per image. */
export function imageUnits(model: Priced, usage: ImageCounts): BilledUnits {
  const tokenPriced = model.prices.image_output !== undefined || model.prices.text_input !== undefined;
  if (!tokenPriced) return { image: usage.images };
  return { text_input: usage.textInputTokens, image_input: usage.imageInputTokens, image_output: usage.imageOutputTokens };
}

/** OCR units: pages processed. */
export function ocrUnits(pagesProcessed: number): BilledUnits {
  return { page: pagesProcessed };
}

/** The dearest of some keys' unit prices (a hold prices each token at the most it may cost). */
export function dearestPrice(model: Priced, keys: readonly PriceKey[]): Atto {
  return keys.reduce<Atto>((max, key) => {
    const price = unitPrice(model, key) ?? 0n;
    return price > max ? price : max;
  }, 0n);
}

/** Price keys an input token may be billed under, and an output token. */
const INPUT_KEYS: readonly PriceKey[] = ['prompt', 'input_cache_read', 'input_cache_write', 'input_cache_write_1h'];
const OUTPUT_KEYS: readonly PriceKey[] = ['completion', 'internal_reasoning'];

/** The unit prices a chat hold counts at (atto-USD), fixed by a model's prices alone. */
export interface HoldUnitPrices {
  /** The dearest price an input token may be billed at (a cache write may cost more than plain input). */
  readonly input: Atto;
  /** The dearest price an output token may be billed at. */
  readonly output: Atto;
  readonly webSearch: Atto;
  /** The per-call fee (0 when none). */
  readonly request: Atto;
}

/** The hold's unit prices of a model; the catalog works them out once per entry as it loads. */
export function holdUnitPrices(model: Priced): HoldUnitPrices {
  return {
    input: dearestPrice(model, INPUT_KEYS),
    output: dearestPrice(model, OUTPUT_KEYS),
    webSearch: unitPrice(model, 'web_search') ?? 0n,
    request: unitPrice(model, 'request') ?? 0n,
  };
}
