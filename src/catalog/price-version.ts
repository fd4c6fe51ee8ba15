import { createHash } from 'node:crypto';
import { PRICE_KEYS, type PriceKey } from '../billing/index.js';

/**
 * The version of a model's prices: the first 16 hex digits of the SHA-256 of its prices in a
 * fixed key order. It changes exactly when a price changes, on every process alike, with no
 * counter to keep; charges and receipts carry it, so a bill names the prices it used.
 */
export function priceVersion(pricing: Readonly<Partial<Record<PriceKey, string>>>): string {
  const canonical = PRICE_KEYS.filter((key) => pricing[key] !== undefined).map((key) => [key, pricing[key]]);
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex').slice(0, 16);
}
