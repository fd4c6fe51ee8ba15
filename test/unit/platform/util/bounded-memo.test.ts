import { describe, expect, it } from 'vitest';
import { BoundedMemo } from '../../../../src/platform/util/bounded-memo.js';

describe('BoundedMemo', () => {
  it('computes each key once, holds at most max results, and does not remember a throw', () => {
    const calls: string[] = [];
    const memo = new BoundedMemo((key) => {
      calls.push(key);
      if (key === 'bad') throw new Error('no');
      return key.length;
    }, 2);
    expect([memo.get('a'), memo.get('bb'), memo.get('a')]).toEqual([1, 2, 1]);
    expect(calls).toEqual(['a', 'bb']);
    memo.get('ccc'); // full: emptied, then holds only 'ccc'
    memo.get('a');
    expect(calls).toEqual(['a', 'bb', 'ccc', 'a']);
    expect(() => memo.get('bad')).toThrow('no');
    expect(() => memo.get('bad')).toThrow('no');
    expect(calls.filter((k) => k === 'bad')).toHaveLength(2);
    memo.clear();
    memo.get('ccc');
    expect(calls.at(-1)).toBe('ccc');
  });
});
