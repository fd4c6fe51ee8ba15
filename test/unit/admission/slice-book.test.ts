import { describe, expect, it } from 'vitest';
import type { AdmissionTicket } from '../../../src/admission/admission-types.js';
import { expiryMargin, SliceBook } from '../../../src/admission/slice-book.js';
import { Slice } from '../../../src/admission/slice.js';

const SETTINGS = { ttlMs: 30_000, maxNano: 1_000_000_000n, idleMs: 1_000 };
const owner = { accountId: 'acct_1', keyId: 'key_1', endUser: '' };
const ticket = {} as AdmissionTicket;
const slice = (size: bigint, at = 0) => new Slice(`slice_${size}`, size, ticket, at, owner);

describe('Slice', () => {
  it('takes only what fits, and a request\'s end gives back its hold less its cost', () => {
    const s = slice(100n);
    expect(s.take(60n, 1)).toBe(true);
    expect(s.take(50n, 2)).toBe(false);
    expect(s.take(40n, 3)).toBe(true);
    expect(s.room).toBe(0n);
    s.put(60n, 25n);
    expect([s.size, s.reserved, s.room, s.running]).toEqual([75n, 40n, 35n, 1]);
    s.retired = true;
    expect(s.take(1n, 4)).toBe(false);
  });
});

describe('SliceBook', () => {
  it('sizes a slice from recent demand, at least four requests and at most the maximum', () => {
    const book = new SliceBook(SETTINGS);
    expect(book.sizeFor('h', 1_000n, 0)).toBe(4_000n);
    // 100 requests of $0.001 within a second: about two seconds of that demand.
    for (let i = 0; i < 100; i++) book.take('h', 1_000_000n, 0, i * 10);
    const size = book.sizeFor('h', 1_000_000n, 1_000);
    // Just over 100 holds by the decaying weight: 100 whole ones.
    expect(size).toBeGreaterThanOrEqual(100_000_000n);
    expect(size).toBeLessThanOrEqual(SETTINGS.maxNano);
    expect(book.sizeFor('h', 5_000_000_000n, 1_000)).toBe(5_000_000_000n);
  });

  it('sizes a slice as a whole number of the request\'s holds, so they leave no remainder that fits none of them', () => {
    const book = new SliceBook(SETTINGS);
    // A quarter of a cap of ten holds is two and a half: two.
    expect(book.sizeFor('h', 1_000n, 0, 10_000n)).toBe(2_000n);
    // A cap whose quarter fits no hold: the exact path.
    expect(book.sizeFor('h', 1_000n, 0, 3_999n)).toBeUndefined();
    // The largest slice ($1) holds three holds of $0.3, not three and a third.
    expect(book.sizeFor('big', 300_000_000n, 0)).toBe(900_000_000n);
    // However uneven the recent demand is.
    for (let i = 0; i < 37; i++) book.take('busy', 1_000_000n + BigInt(i * 7_919), 0, i * 13);
    const size = book.sizeFor('busy', 1_234_567n, 500);
    expect(size).toBeGreaterThan(4n * 1_234_567n);
    expect((size ?? 0n) % 1_234_567n).toBe(0n);
  });

  it('never spends a slice past its last renewal plus its TTL less the margin', () => {
    const book = new SliceBook(SETTINGS);
    const s = slice(100n, 0);
    book.add('h', s);
    const margin = expiryMargin(SETTINGS.ttlMs);
    expect(book.take('h', 10n, 0, SETTINGS.ttlMs - margin - 1)).toBe(s);
    expect(book.take('h', 10n, 0, SETTINGS.ttlMs - margin)).toBeUndefined();
    // A renewal moves the window on (a retired slice stays retired).
    const renewed = slice(100n, 0);
    book.add('r', renewed);
    expect(book.take('r', 10n, 20_000, 40_000)).toBe(renewed);
    expect(expiryMargin(6_000)).toBe(2_000);
  });

  it('hands back idle slices with nothing running, and leaked ones after the longest request', () => {
    const book = new SliceBook(SETTINGS);
    const idle = slice(100n, 0);
    const busy = slice(100n, 0);
    book.add('a', idle);
    book.add('b', busy);
    busy.take(10n, 0);
    expect(book.sweep(0, 500)).toEqual([]);
    expect(book.sweep(0, 1_000)).toEqual([idle]);
    expect(busy.retired).toBe(true);
    expect(book.sweep(0, 2_000, 60_000)).toEqual([]);
    expect(book.sweep(0, 70_000, 60_000)).toEqual([busy]);
    expect(book.all()).toEqual([]);
  });

  it('asks for more ahead of need once less than half the wanted size is left', () => {
    const book = new SliceBook(SETTINGS);
    const s = slice(4_000n, 0);
    book.add('h', s);
    expect(book.take('h', 1_000n, 0, 1)).toBe(s);
    expect(book.wantsMore('h', 1_000n, 0, 1)).toBe(false);
    book.take('h', 1_000n, 0, 2);
    expect(book.wantsMore('h', 1_000n, 0, 2)).toBe(false);
    book.take('h', 1_000n, 0, 3);
    expect(book.wantsMore('h', 1_000n, 0, 3)).toBe(true);
    expect(book.wantsMore('h', 1_000n, 0, 3)).toBe(false);
    book.grown('h');
    expect(book.wantsMore('h', 1_000n, 0, 4)).toBe(true);
  });
});
