import type { Logger } from 'pino';
import type { Redis } from '../platform/redis/index.js';
import { type CacheEntry, parseEntry } from './cache-entry.js';
import type { CacheObserver } from './cache-metrics.js';
import { CacheStore } from './cache-store.js';

/** The cache's bounds. */
export interface CacheSettings {
  /** Redis key prefix of this deployment. */
  readonly prefix: string;
  /** Most bytes all entries may take together (`CACHE_MAX_BYTES`); 0 turns the cache off. */
  readonly maxBytes: number;
  /** Most bytes one entry may take (`CACHE_MAX_ENTRY_BYTES`); a larger answer is not stored. */
  readonly maxEntryBytes: number;
}

/**
 * The exact response cache: finds and keeps answers by their cache key (see cacheKey). Redis
 * trouble never fails a request here: a lookup that fails is a miss and a store that fails is
 * skipped, since the cache only ever saves work.
 */
export class ResponseCache {
  private readonly store: CacheStore;

  constructor(
    redis: Redis,
    readonly settings: CacheSettings,
    private readonly log: Logger,
    private readonly observer?: CacheObserver,
    /** Unix ms; entries are stamped and aged by this one clock. */
    readonly now: () => number = Date.now,
  ) {
    this.store = new CacheStore(redis, settings.prefix);
  }

  /** Whether the cache may hold anything at all. */
  get enabled(): boolean {
    return this.settings.maxBytes > 0 && this.settings.maxEntryBytes > 0;
  }

  /** The entry under `name` if it is no older than `maxAgeSeconds`; counts the hit or miss. */
  async lookup(name: string, maxAgeSeconds: number, door: string): Promise<CacheEntry | undefined> {
    let entry: CacheEntry | undefined;
    try {
      const text = await this.store.get(name);
      entry = text === undefined ? undefined : parseEntry(text);
    } catch (err) {
      this.log.warn({ err }, 'response cache lookup failed; served as a miss');
    }
    if (entry !== undefined && this.now() - entry.stored_at > maxAgeSeconds * 1000) entry = undefined;
    if (entry === undefined) this.observer?.miss(door);
    else this.observer?.hit(door);
    return entry;
  }

  /** Keeps an entry for `ttlSeconds` unless it is over the entry bound; never throws. */
  async keep(name: string, entry: CacheEntry, ttlSeconds: number, door: string): Promise<boolean> {
    const text = JSON.stringify(entry);
    if (Buffer.byteLength(text, 'utf8') > this.settings.maxEntryBytes) {
      this.observer?.tooLarge(door);
      return false;
    }
    try {
      const result = await this.store.set(name, text, ttlSeconds * 1000, this.settings.maxBytes, this.now());
      this.observer?.evicted(result.evicted);
      this.observer?.size(result.bytes);
      if (result.stored) this.observer?.stored(door, Buffer.byteLength(text, 'utf8'));
      return result.stored;
    } catch (err) {
      this.log.warn({ err }, 'response cache store failed; the answer is not kept');
      return false;
    }
  }
}
