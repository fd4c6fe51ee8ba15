import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attoUsd, formatUsd, parsePrice } from '../../../src/billing/money.js';
import { costOf, priceUnits, type BilledUnits } from '../../../src/billing/pricing.js';
import { holdCost } from '../../../src/chat/admit/chat-estimate.js';
import type { CatalogModel, PriceKey } from '../../../src/catalog/model-types.js';
import { testModel } from '../chat/chat-fakes.js';

const KEYS: PriceKey[] = ['prompt', 'completion', 'internal_reasoning', 'input_cache_read', 'input_cache_write', 'input_cache_write_1h', 'web_search', 'request'];
/** Prices as catalogs write them: up to 18 decimals, from zero to dollars per unit. */
const price = fc.tuple(fc.integer({ min: 0, max: 5 }), fc.bigInt({ min: 0n, max: 10n ** 18n - 1n })).map(([w, f]) => `${w}.${f.toString().padStart(18, '0')}`);
const model: fc.Arbitrary<CatalogModel> = fc.dictionary(fc.constantFrom(...KEYS), price, { minKeys: 0, maxKeys: KEYS.length }).map((p) => {
  const base = testModel();
  const prices = Object.fromEntries(Object.entries({ prompt: '0.000001', completion: '0.000002', ...p }).map(([k, v]) => [k, parsePrice(v)]));
  return { ...base, prices };
});
const units: fc.Arbitrary<BilledUnits> = fc.dictionary(fc.constantFrom(...KEYS.filter((k) => k !== 'request')), fc.integer({ min: 0, max: 2_000_000 }));

/** The reference: each line exact in atto-USD, rounded half up to nano once, summed. */
function reference(m: CatalogModel, u: BilledUnits): bigint {
  return priceUnits(m, u).lines.reduce((sum, l) => sum + (l.unitPrice * BigInt(l.units) + 500_000_000n) / 1_000_000_000n, 0n);
}

describe('USD text is exact', () => {
  it('a unit price written as text parses back to the same atto-USD, the first time and the remembered time', () => {
    fc.assert(fc.property(price, (p) => {
      const atto = parsePrice(p);
      const text = attoUsd(atto);
      expect(text).not.toMatch(/\.$|\.\d*0$/);
      expect(parsePrice(text)).toBe(atto);
      expect(attoUsd(atto)).toBe(text);
    }), { numRuns: 500 });
  });

  it('a nano-USD amount is written digit for digit, whatever its whole dollars and nano-dollars', () => {
    const fraction = fc.oneof(fc.constantFrom(0n, 1n, 10n, 100_000_000n, 999_999_999n, 999_999_990n), fc.bigInt({ min: 0n, max: 999_999_999n }));
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 9_007_199n }), fraction, fc.boolean(), (whole, nanos, negative) => {
      const nano = (negative ? -1n : 1n) * (whole * 10n ** 9n + nanos);
      const digits = nanos.toString().padStart(9, '0').replace(/0+$/, '');
      const expected = `${negative && nano !== 0n ? '-' : ''}${whole}${digits ? `.${digits}` : ''}`;
      expect(formatUsd(nano)).toBe(expected);
    }), { numRuns: 2_000 });
  });

  it('a nano-USD amount, negative or not, reads back as the same number of nano-USD, on either side of 2^53', () => {
    fc.assert(fc.property(fc.oneof(fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }), fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), fc.bigInt({ min: 2n ** 53n - 10n ** 10n, max: 2n ** 53n + 10n ** 10n }).map((n) => (n % 2n === 0n ? n : -n))), (nano) => {
      const text = formatUsd(nano);
      expect(text).not.toMatch(/\.$|\.\d*0$/);
      const [whole = '', fraction = ''] = text.replace('-', '').split('.');
      const back = BigInt(whole) * 10n ** 9n + BigInt(fraction.padEnd(9, '0'));
      expect(text.startsWith('-') ? -back : back).toBe(nano);
    }), { numRuns: 2_000 });
  });
});

describe('pricing is exact, additive and monotone', () => {
  it('lines sum exactly to costOf, and costOf equals the BigInt reference', () => {
    fc.assert(fc.property(model, units, (m, u) => {
      const bill = priceUnits(m, u);
      expect(bill.lines.reduce((s, l) => s + l.amount, 0n)).toBe(bill.cost);
      expect(costOf(m, u)).toBe(bill.cost);
      expect(costOf(m, u)).toBe(reference(m, u));
    }), { numRuns: 500 });
  });

  it('costOf never falls when any unit grows', () => {
    fc.assert(fc.property(model, units, fc.constantFrom(...KEYS.filter((k) => k !== 'request')), fc.integer({ min: 1, max: 1_000_000 }), (m, u, key, more) => {
      expect(costOf(m, { ...u, [key]: (u[key] ?? 0) + more })).toBeGreaterThanOrEqual(costOf(m, u));
    }), { numRuns: 500 });
  });

  it('holdCost bounds the cost of any usage within the hold units', () => {
    const split = fc.record({ prompt: fc.nat(), cacheRead: fc.nat(), cacheWrite: fc.nat(), cacheWrite1h: fc.nat(), completion: fc.nat(), reasoning: fc.nat(), searches: fc.nat({ max: 20 }) });
    fc.assert(fc.property(model, fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 0, max: 100_000 }), split, (m, promptTokens, completionTokens, s) => {
      const webSearches = s.searches;
      const hold = holdCost(m, { promptTokens, completionTokens, webSearches });
      // Any way of splitting the held input and output over their price keys.
      const a = Math.min(promptTokens, s.cacheRead);
      const b = Math.min(promptTokens - a, s.cacheWrite);
      const c = Math.min(promptTokens - a - b, s.cacheWrite1h);
      const r = Math.min(completionTokens, s.reasoning);
      const used: BilledUnits = { prompt: promptTokens - a - b - c, input_cache_read: a, input_cache_write: b, input_cache_write_1h: c, completion: completionTokens - r, internal_reasoning: r, web_search: webSearches };
      expect(costOf(m, used)).toBeLessThanOrEqual(hold);
    }), { numRuns: 1000 });
  });
});
