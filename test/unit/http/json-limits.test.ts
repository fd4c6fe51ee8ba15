import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/platform/errors/gateway-error.js';
import fc from 'fast-check';
import { checkJsonDepth, checkJsonLimits, DEFAULT_JSON_LIMITS } from '../../../src/http/middleware/json-limits.js';

function refusal(value: unknown, limits = DEFAULT_JSON_LIMITS): { code: string; param: string | null; message: string } | undefined {
  try {
    checkJsonLimits(value, limits);
    return undefined;
  } catch (err) {
    if (!(err instanceof GatewayError)) throw err;
    return { code: err.code, param: err.param, message: err.message };
  }
}

/** An array nested `depth` levels deep, built without recursion. */
function nested(depth: number): unknown {
  let value: unknown = [];
  for (let i = 1; i < depth; i += 1) value = [value];
  return value;
}

describe('generic JSON limits', () => {
  it('accepts nesting up to the limit and refuses one level more', () => {
    expect(refusal({ a: nested(63) })).toBeUndefined();
    expect(refusal({ a: nested(64) })).toMatchObject({ code: 'invalid_request', param: null, message: expect.stringMatching(/deeper than 64/) });
  });

  it('walks a million levels without overflowing the stack', () => {
    expect(refusal(nested(1_000_000))?.code).toBe('invalid_request');
  });

  it('names the path of a long array, a long string and a crowded object', () => {
    const limits = { maxDepth: 64, maxArrayItems: 3, maxObjectKeys: 3, maxStringChars: 5 };
    expect(refusal({ list: [1, 2, 3, 4] }, limits)?.param).toBe('list');
    expect(refusal({ list: [{ text: 'toolong' }] }, limits)?.param).toBe('list.0.text');
    expect(refusal({ m: { a: 1, b: 2, c: 3, d: 4 } }, limits)?.param).toBe('m');
    expect(refusal({ m: { long_key: 1 } }, limits)?.param).toBe('m');
    expect(refusal({ list: [1, 2, 3], text: 'short' }, limits)).toBeUndefined();
  });

  it('leaves scalars and null alone', () => {
    for (const value of [null, 0, false, 'x', 1.5]) expect(refusal(value)).toBeUndefined();
  });
});

/** Nesting of a parsed value, counted as checkJsonLimits counts it (a scalar is 0). */
function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  return 1 + Math.max(0, ...Object.values(value).map(depthOf));
}

describe('the nesting scan of JSON text before it is parsed', () => {
  const refusesText = (text: string, max: number): boolean => {
    try {
      checkJsonDepth(text, max);
      return false;
    } catch (err) {
      expect(err).toBeInstanceOf(GatewayError);
      return true;
    }
  };

  it('refuses 200,000 nested arrays, and one level past the limit', () => {
    expect(refusesText(`${'['.repeat(200_000)}${']'.repeat(200_000)}`, 64)).toBe(true);
    expect(refusesText(`{"a":${'['.repeat(63)}${']'.repeat(63)}}`, 64)).toBe(false);
    expect(refusesText(`{"a":${'['.repeat(64)}${']'.repeat(64)}}`, 64)).toBe(true);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const inString = JSON.stringify({ text: `[[[{{{ \\" \\\\" ${'['.repeat(100)}` });
    expect(refusesText(inString, 2)).toBe(false);
    expect(refusesText('{"a\\\\":[[1]]}', 2)).toBe(true);
  });

  it('agrees with the depth of the parsed value, for any JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 1, max: 6 }), (value, max) => {
        const text = JSON.stringify(value);
        expect(refusesText(text, max)).toBe(depthOf(value) > max);
      }),
      { numRuns: 500 },
    );
  });
});
