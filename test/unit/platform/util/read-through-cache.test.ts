import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ReadThroughCache } from '../../../../src/platform/util/read-through-cache.js';

/** A store whose reads finish when the test says so, counting them. */
function gatedStore<V>(value: () => V) {
  const waiting: Array<() => void> = [];
  const store = {
    reads: 0,
    writable: true,
    load: (_key: string): Promise<V> => {
      store.reads++;
      const read = value(); // what the store held when the read started
      return new Promise<V>((resolve) => waiting.push(() => resolve(read)));
    },
    release: () => waiting.splice(0).forEach((done) => done()),
  };
  return store;
}

/** Lets time pass on the fake clock, running whatever falls due (reads waiting to start, TTLs). */
const pass = (ms: number) => vi.advanceTimersByTimeAsync(ms);

describe('ReadThroughCache', () => {
  // Time here is the cache's TTL logic, not a process's: the clock is fake and moved by hand.
  // lru-cache keeps the `performance` object it found at load, so that object's clock follows
  // the fake one too.
  beforeEach(() => {
    const processClock = globalThis.performance;
    vi.useFakeTimers();
    vi.spyOn(processClock, 'now').mockImplementation(() => Date.now());
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it('serves concurrent misses of one key with one read, then from the cache', async () => {
    const store = gatedStore(() => 'v1');
    const cache = new ReadThroughCache({ load: store.load, ttlMs: 10_000, max: 10 });
    const reads = Promise.all(Array.from({ length: 50 }, () => cache.get('a')));
    await pass(1);
    store.release();
    expect(await reads).toEqual(Array(50).fill('v1'));
    expect(await cache.get('a')).toBe('v1');
    expect(store.reads).toBe(1);
  });

  it('caches null and false, and reads again once the TTL has passed', async () => {
    let value: boolean | null = null;
    let reads = 0;
    const cache = new ReadThroughCache<string, boolean | null>({ load: async () => (reads++, value), ttlMs: 30, max: 10 });
    expect(await cache.get('a')).toBeNull();
    expect(await cache.get('a')).toBeNull();
    expect(reads).toBe(1);
    value = false;
    await pass(60);
    expect(await cache.get('a')).toBe(false);
    expect(reads).toBe(2);
  });

  it('serves a cached value without starting a timer (it is asked several times per request)', async () => {
    const cache = new ReadThroughCache({ load: async () => 'v', ttlMs: 10_000, max: 10 });
    await cache.get('a');
    const timers = vi.spyOn(globalThis, 'setTimeout');
    for (let i = 0; i < 5; i++) {
      expect(await cache.get('a')).toBe('v');
      await pass(2);
    }
    expect(timers).not.toHaveBeenCalled();
  });

  it('does not keep a read that was in flight when the key was forgotten, but answers its callers', async () => {
    let version = 'before';
    const store = gatedStore(() => version);
    const cache = new ReadThroughCache({ load: store.load, ttlMs: 10_000, max: 10 });
    const early = cache.get('a');
    await pass(1);
    cache.forget('a'); // the record changed while the read ran
    version = 'after';
    store.release();
    expect(await early).toBe('before');
    const next = cache.get('a');
    await pass(1);
    store.release();
    expect(await next).toBe('after');
    expect(store.reads).toBe(2);
  });

  it('forgets an entry at once', async () => {
    let version = 1;
    const cache = new ReadThroughCache({ load: async () => version, ttlMs: 10_000, max: 10 });
    expect(await cache.get('a')).toBe(1);
    version = 2;
    expect(await cache.get('a')).toBe(1);
    cache.forget('a');
    expect(await cache.get('a')).toBe(2);
  });

  it('while the store is down, serves the last value past its TTL and refuses unknown keys at once', async () => {
    const store = { writable: true };
    let reads = 0;
    const cache = new ReadThroughCache({
      load: async (key: string) => (reads++, `${key}!`),
      ttlMs: 20,
      max: 10,
      store,
      unavailable: () => new Error('store down'),
    });
    expect(await cache.get('a')).toBe('a!');
    store.writable = false;
    await pass(40);
    expect(await cache.get('a')).toBe('a!');
    await expect(cache.get('b')).rejects.toThrow('store down');
    expect(reads).toBe(1);
    cache.forget('a');
    await expect(cache.get('a')).rejects.toThrow('store down');
  });

  it('peeks at what a get would answer from memory, and nothing it would have to read', async () => {
    const store = gatedStore(() => null);
    const cache = new ReadThroughCache({ load: store.load, ttlMs: 1_000, max: 10 });
    expect(cache.peek('a')).toBeUndefined();
    const read = cache.get('a');
    await pass(0);
    // A read in flight is not an answer yet.
    expect(cache.peek('a')).toBeUndefined();
    store.release();
    await read;
    // null is a value: boxed, so a peek tells it from a miss.
    expect(cache.peek('a')).toEqual({ value: null });
    await pass(1_001);
    expect(cache.peek('a')).toBeUndefined();
    store.writable = false;
    const down = new ReadThroughCache({ load: store.load, ttlMs: 1_000, max: 10, store });
    store.writable = true;
    const last = down.get('b');
    await pass(0);
    store.release();
    await last;
    store.writable = false;
    await pass(5_000);
    // While the store is down the last value read is still the answer, past its TTL.
    expect(down.peek('b')).toEqual({ value: null });
    expect(store.reads).toBe(2);
  });
});
