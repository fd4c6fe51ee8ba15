import { LRUCache } from 'lru-cache';

/** Where a {@link ReadThroughCache} reads from, and whether that store can change right now. */
export interface ReadThroughOptions<K extends string, V> {
  /** Reads the current value of `key` from the store of record. */
  readonly load: (key: K) => Promise<V>;
  /** How long a value read is served before it is read again. */
  readonly ttlMs: number;
  /** Most entries kept (least recently used ones go first). */
  readonly max: number;
  /**
   * While the store cannot be written, nothing it holds can change, so the last value read
   * stays the truth past its TTL (`forget` still drops it).
   */
  readonly store?: { readonly writable: boolean };
  /**
   * The error for a miss while the store is down, at once instead of after the store's own
   * timeout; without it such a miss reads the store anyway.
   */
  readonly unavailable?: () => Error;
}

/** A value boxed, so that null and false are cacheable. */
interface Box<V> {
  readonly value: V;
}

/**
 * A per-process read-through cache over lru-cache's `fetchMethod`: a value is served for
 * `ttlMs`; concurrent misses of one key share one read (under load an entry lapses with
 * hundreds of requests in flight); `forget` drops an entry at once, and a read that was in
 * flight when it was forgotten still answers its callers but is not cached, since it may have
 * read the record before the change.
 */
export class ReadThroughCache<K extends string, V> {
  private readonly cache: LRUCache<K, Box<V>>;
  private readonly store: { readonly writable: boolean };
  private readonly unavailable: (() => Error) | undefined;

  constructor(options: ReadThroughOptions<K, V>) {
    this.store = options.store ?? { writable: true };
    this.unavailable = options.unavailable;
    const load = options.load;
    this.cache = new LRUCache<K, Box<V>>({
      max: options.max,
      ttl: options.ttlMs,
      // lru-cache otherwise remembers the time for 1 ms behind a new timer, and a web asks
      // its caches several times per request: that made a timer per request per cache.
      ttlResolution: 0,
      // A stale entry stays until replaced, to be served while the store is down, and also
      // when a read fails before the store is seen to be down (the driver notices a dead
      // server only at its next heartbeat): a failed read cannot mean the value changed.
      noDeleteOnStaleGet: true,
      allowStaleOnFetchRejection: true,
      noDeleteOnFetchRejection: true,
      // `forget` aborts a read in flight: its callers still get what it read; the cache does
      // not keep it (lru-cache stores a fetch's value only while it is the entry's own).
      ignoreFetchAbort: true,
      fetchMethod: async (key) => ({ value: await load(key) }),
    });
  }

  /**
   * The value `get` would answer from memory (fresh, or the last read while the store is
   * down), without waiting; undefined when it would have to read. Most reads are hits, and an
   * awaited hit still costs every caller up the chain a turn of the microtask queue.
   * lru-cache's `peek`, not its `get`: it answers the same (this cache keeps stale entries),
   * without moving the entry up the eviction order, which an entry that lapses every `ttlMs`
   * does not need, and a web asks several caches per request.
   */
  peek(key: K): { readonly value: V } | undefined {
    return this.store.writable ? this.cache.peek(key) : this.cache.peek(key, { allowStale: true });
  }

  /** The cached value while fresh (or while the store is down), else one shared read. */
  async get(key: K): Promise<V> {
    const known = this.peek(key);
    if (known) return known.value;
    if (!this.store.writable && this.unavailable) throw this.unavailable();
    const box = await this.cache.fetch(key);
    if (!box) throw new Error('read-through cache read nothing');
    return box.value;
  }

  /** Drops an entry (it changed somewhere); a read in flight for it is not cached. */
  forget(key: K): void {
    this.cache.delete(key);
  }
}
