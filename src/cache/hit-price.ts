import { type CostLineWire, formatUsd, type Nano } from '../billing/index.js';
import type { CatalogModel } from '../catalog/index.js';

/** The cost line of a request served from the cache. */
export const CACHE_HIT_COMPONENT = 'cache_hit';

/** A decimal fraction as an exact ratio of integers. */
interface Ratio {
  readonly num: bigint;
  readonly den: bigint;
}

/** `pricing.cache_hit` of the entry (validated 0 to 1 by the catalog schema); absent: 0. */
function hitFraction(model: CatalogModel): Ratio {
  const text = model.doc.pricing.cache_hit;
  const match = text === undefined ? null : /^(\d+)(?:\.(\d{1,18}))?$/.exec(text);
  if (match === null) return { num: 0n, den: 1n };
  const decimals = match[2] ?? '';
  return { num: BigInt(`${match[1] ?? '0'}${decimals}`), den: 10n ** BigInt(decimals.length) };
}

/**
 * What a hit costs, nano-USD: the entry's `cache_hit` fraction of the original answer's cost,
 * rounded half up to the nano-USD as every cost line is; never above the original.
 */
export function hitCost(model: CatalogModel, originalNano: Nano): Nano {
  const { num, den } = hitFraction(model);
  const cost = (2n * originalNano * num + den) / (2n * den);
  return cost > originalNano ? originalNano : cost;
}

/** The one cost line of a hit: one cached answer at its hit price. */
export function hitLine(cost: Nano): CostLineWire {
  const usd = formatUsd(cost);
  return { component: CACHE_HIT_COMPONENT, units: 1, unit_price_usd: usd, amount_usd: usd };
}

/** Exact nano-USD of a decimal USD string such as a cost line's `amount_usd` (may be negative). */
export function nanoOfUsd(text: string): Nano {
  const match = /^(-?)(\d+)(?:\.(\d{1,9}))?$/.exec(text);
  if (match === null) throw new Error(`not a USD amount: ${text}`);
  const nano = BigInt(match[2] ?? '0') * 1_000_000_000n + BigInt((match[3] ?? '').padEnd(9, '0'));
  return match[1] === '-' ? -nano : nano;
}

/** What an answer reported it cost: the sum of its `cost_details` lines, exactly. */
export function reportedCost(usage: unknown): Nano | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const lines = (usage as { cost_details?: unknown }).cost_details;
  if (!Array.isArray(lines)) return undefined;
  let total = 0n;
  for (const line of lines) {
    const amount = (line as { amount_usd?: unknown } | null)?.amount_usd;
    if (typeof amount !== 'string') return undefined;
    total += nanoOfUsd(amount);
  }
  return total;
}
