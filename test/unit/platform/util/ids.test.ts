import { describe, expect, it } from 'vitest';
import { newId } from '../../../../src/platform/util/ids.js';

describe('newId', () => {
  it('gives 24 hex digits after the prefix, never the same twice across refills of its pool', () => {
    const ids = Array.from({ length: 5_000 }, () => newId('req'));
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // Each draw is fresh randomness: no two ids share their 12 bytes, and the hex digits are used evenly.
    const digits = new Map<string, number>();
    for (const id of ids) for (const d of id.slice(4)) digits.set(d, (digits.get(d) ?? 0) + 1);
    expect(digits.size).toBe(16);
    for (const n of digits.values()) expect(n / (ids.length * 24)).toBeCloseTo(1 / 16, 2);
  });
});
