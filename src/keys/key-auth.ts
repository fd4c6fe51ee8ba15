import type { Collections } from '../db/collections.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Clock } from '../billing/periods.js';
import { hashKey, isWellFormedKey } from './key-secret.js';
import type { KeyDoc } from './key-types.js';

interface CacheEntry {
  key: KeyDoc | null;
  expires: number;
}

const INVALID = 'Invalid API key. Check the Authorization header (Bearer sk-fbx-…).';

/**
 * Resolves bearer keys to key records. Lookups are cached per process for at most `ttlMs`
 * (and dropped at once on invalidation), so a disabled key stops working everywhere within
 * a second even if an invalidation message is lost.
 */
export class KeyAuthenticator {
  private readonly cache = new Map<string, CacheEntry>();
  /** Queries in flight by hash: concurrent misses share one instead of each querying MongoDB. */
  private readonly pending = new Map<string, Promise<KeyDoc | null>>();

  constructor(
    private readonly c: Collections,
    private readonly clock: Clock,
    private readonly ttlMs = 1_000,
    private readonly store: { readonly writable: boolean } = { writable: true },
  ) {}

  /** Returns the active key for a raw bearer value, or throws 401 `invalid_api_key`. */
  async authenticate(raw: string | undefined): Promise<KeyDoc> {
    if (!raw || !isWellFormedKey(raw)) throw new GatewayError('invalid_api_key', INVALID);
    return this.authenticateHash(hashKey(raw));
  }

  /**
   * Returns the active key whose secret hashes to `hash` (a console session holds the hash,
   * never the secret), or throws 401 `invalid_api_key`.
   */
  async authenticateHash(hash: string): Promise<KeyDoc> {
    const key = await this.lookup(hash);
    if (!key) throw new GatewayError('invalid_api_key', INVALID);
    if (key.disabled) throw new GatewayError('invalid_api_key', 'This API key is disabled.');
    if (key.expires_at && key.expires_at.getTime() <= this.clock().getTime()) {
      throw new GatewayError('invalid_api_key', 'This API key has expired.');
    }
    return key;
  }

  /** Forgets a key (invalidation from any process). */
  forget(hash: string): void {
    this.cache.delete(hash);
    this.pending.delete(hash);
  }

  private lookup(hash: string): Promise<KeyDoc | null> {
    const now = Date.now();
    const hit = this.cache.get(hash);
    // While MongoDB is down no key can be changed, so the last record read stays the truth
    // (invalidations still drop it): known keys keep working for free and admitted work.
    if (hit && (hit.expires > now || !this.store.writable)) return Promise.resolve(hit.key);
    // Under load every entry lapses with hundreds of requests in flight; one query serves them.
    const inFlight = this.pending.get(hash);
    if (inFlight) return inFlight;
    // MongoDB is known to be down: answer at once rather than after a server selection timeout.
    if (!this.store.writable) return Promise.reject(new GatewayError('service_unavailable', 'A backing service is unavailable; retry shortly.', { retryAfterSeconds: 1 }));
    const query: Promise<KeyDoc | null> = this.c.keys.findOne({ hash }).then(
      (key) => {
        // Forgotten while the query ran: it may have read the record before the change.
        if (this.pending.get(hash) !== query) return key;
        this.pending.delete(hash);
        if (this.cache.size > 50_000) this.cache.clear();
        this.cache.set(hash, { key, expires: now + this.ttlMs });
        return key;
      },
      (err: unknown) => {
        if (this.pending.get(hash) === query) this.pending.delete(hash);
        throw err;
      },
    );
    this.pending.set(hash, query);
    return query;
  }
}
