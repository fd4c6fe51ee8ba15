import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../../src/platform/util/canonical-json.js';

/**
 * The form every stored ledger hash was taken of: a copy with sorted keys, bigint and Date as
 * strings and null or absent fields left out, handed to JSON.stringify. A chain written before
 * must verify after, so the one-pass writer must give these bytes for every value.
 */
function reference(value: unknown): string {
  const canonical = (v: unknown): unknown => {
    if (typeof v === 'bigint') return v.toString();
    if (v instanceof Date) return v.toISOString();
    if (Array.isArray(v)) return v.map(canonical);
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(v).sort()) {
        const field = (v as Record<string, unknown>)[key];
        if (field !== undefined && field !== null) out[key] = canonical(field);
      }
      return out;
    }
    return v;
  };
  return JSON.stringify(canonical(value));
}

const key = fc.oneof(fc.string(), fc.constantFrom('0', '9', '10', '01', '4294967294', '4294967295', '-1', '1.5', '__proto__', 'constructor', 'hash'));
const leaf = fc.oneof(
  fc.string(),
  fc.double(),
  fc.integer(),
  fc.bigInt(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.date({ noInvalidDate: true }),
  fc.constant(() => 1),
);
const value = fc.letrec((tie) => ({
  tree: fc.oneof({ depthSize: 'small' }, leaf, tie('array'), tie('object')),
  array: fc.oneof(fc.array(tie('tree'), { maxLength: 5 }), fc.sparseArray(tie('tree'), { maxLength: 5 })),
  object: fc.dictionary(key, tie('tree'), { maxKeys: 6 }),
})).tree;

describe('canonical JSON', () => {
  it('gives, for any value, the bytes of the sorted copy handed to JSON.stringify', () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(canonicalJson(v)).toBe(reference(v));
      }),
      { numRuns: 5_000 },
    );
  });

  it('writes array indexes first in numeric order, then the other keys sorted, without null fields', () => {
    expect(canonicalJson({ b: 1, 10: 2, 9: 3, a: null, '01': 4, c: [undefined, 5n], d: new Date(0) })).toBe('{"9":3,"10":2,"01":4,"b":1,"c":[null,"5"],"d":"1970-01-01T00:00:00.000Z"}');
  });
});
