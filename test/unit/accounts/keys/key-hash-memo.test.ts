import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeyHashMemo } from '../../../../src/accounts/keys/key-hash-memo.js';
import { hashKey, isWellFormedKey, mintSecret } from '../../../../src/accounts/keys/key-secret.js';
import { bearerToken } from '../../../../src/http/middleware/authenticate.js';

describe('key hashes remembered per connection', () => {
  it('answers every key on every connection with its own hash, and nothing for what is not a key, whatever came before on either', () => {
    const keys = Array.from({ length: 4 }, () => mintSecret().raw);
    // Keys one character apart from another key, at its start, middle and end.
    const near = keys.flatMap((raw) => [0, 25, 49].map((i) => raw.slice(0, i) + (raw[i] === 'A' ? 'B' : 'A') + raw.slice(i + 1)));
    // Not keys: a character outside the alphabet, one too few or too many, another prefix.
    const malformed = keys.flatMap((raw) => [`${raw.slice(0, 30)}!${raw.slice(31)}`, raw.slice(0, -1), `${raw}A`, `sk-xxx-${raw.slice(7)}`]);
    const all = [...keys, ...near, ...malformed];
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: all.length - 1 })), { maxLength: 60 }), (sends) => {
        const memo = new KeyHashMemo();
        const connections = [{}, {}, {}, undefined];
        for (const [c, k] of sends) {
          const raw = all[k] as string;
          expect(memo.hashOf(raw, connections[c])).toBe(isWellFormedKey(raw) ? hashKey(raw) : undefined);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('answers Authorization headers as their bearer token would be answered, whatever headers came before on the connection', () => {
    const keys = Array.from({ length: 3 }, () => mintSecret().raw);
    const near = keys.map((raw) => `${raw.slice(0, 20)}${raw[20] === 'A' ? 'B' : 'A'}${raw.slice(21)}`);
    // Spellings the bearer form allows and some it does not, around keys and near-keys.
    const spell = [(k: string) => `Bearer ${k}`, (k: string) => `bearer  ${k}`, (k: string) => `Bearer ${k} `, (k: string) => `Bearer\t${k}`, (k: string) => `Bearer ${k}x`, (k: string) => `Basic ${k}`, (k: string) => `Bearer ${k} ${k}`, (k: string) => k];
    const headers = [...keys, ...near].flatMap((k) => spell.map((form) => form(k)));
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: headers.length - 1 })), { maxLength: 60 }), (sends) => {
        const memo = new KeyHashMemo();
        const connections = [{}, {}, undefined];
        for (const [c, h] of sends) {
          const header = headers[h] as string;
          const raw = bearerToken(header);
          expect(memo.hashOf(header, connections[c], bearerToken)).toBe(raw !== undefined && isWellFormedKey(raw) ? hashKey(raw) : undefined);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('hashes a key again only when its connection sent a different one in between', () => {
    const hashed: string[] = [];
    const memo = new KeyHashMemo((raw) => {
      hashed.push(raw);
      return hashKey(raw);
    });
    const [one, other] = [{}, {}];
    const [a, b] = [mintSecret().raw, mintSecret().raw];
    const first = memo.hashOf(a, one);
    // Same content, another string: the memo compares contents.
    expect(memo.hashOf(`${a.slice(0, 10)}${a.slice(10)}`, one)).toBe(first);
    expect(hashed).toEqual([a]);
    expect(memo.hashOf(a, other)).toBe(first);
    expect(memo.hashOf(b, one)).toBe(hashKey(b));
    expect(memo.hashOf(a, one)).toBe(first);
    expect(memo.hashOf(a, undefined)).toBe(first);
    expect(memo.hashOf(`${a}A`, one)).toBeUndefined();
    expect(memo.hashOf(a, one)).toBe(first);
    expect(hashed).toEqual([a, a, b, a, a]);
  });
});
