import { GatewayError } from '../../platform/errors/index.js';
import type { Clock } from '../../billing/index.js';
import { ReadThroughCache } from '../../platform/util/index.js';
import { KeyHashMemo } from './key-hash-memo.js';
import type { KeyDoc } from './key-types.js';
import type { KeyCollections } from './key-collections.js';

const INVALID = 'Invalid API key. Check the Authorization header (Bearer sk-fbx-…).';

/**
 * Resolves bearer keys to key records. Lookups are cached per process for at most `ttlMs`
 * (and dropped at once on invalidation), so a disabled key stops working everywhere within
 * a second even if an invalidation message is lost.
 */
export class KeyAuthenticator {
  /** Records by key hash (null: no such key). */
  private readonly records: ReadThroughCache<string, KeyDoc | null>;
  private readonly hashes = new KeyHashMemo();

  constructor(
    c: KeyCollections,
    private readonly clock: Clock,
    ttlMs = 1_000,
    store: { readonly writable: boolean } = { writable: true },
  ) {
    this.records = new ReadThroughCache({
      load: (hash) => c.keys.findOne({ hash }),
      ttlMs,
      max: 50_000,
      // While MongoDB is down no key can be changed, so the last record read stays the truth
      // (invalidations still drop it): known keys keep working for free and admitted work.
      store,
      // An unknown key then answers at once rather than after a server selection timeout.
      unavailable: () => new GatewayError('service_unavailable', 'A backing service is unavailable; retry shortly.', { retryAfterSeconds: 1 }),
    });
  }

  /**
   * Returns the active key for a raw bearer value, or throws 401 `invalid_api_key`: at once
   * when its record is cached (most requests), else once it is read. `connection` (the socket
   * the key came on) lets a key sent again on it skip hashing (see KeyHashMemo); `token`, when
   * given, takes the key out of `sent` (an Authorization header), which is then not parsed again
   * when it comes again.
   */
  authenticate(sent: string | undefined, connection?: object, token?: (sent: string) => string | undefined): KeyDoc | Promise<KeyDoc> {
    const hash = sent ? this.hashes.hashOf(sent, connection, token) : undefined;
    if (hash === undefined) throw new GatewayError('invalid_api_key', INVALID);
    const cached = this.records.peek(hash);
    return cached === undefined ? this.authenticateHash(hash) : this.active(cached.value);
  }

  /**
   * Returns the active key whose secret hashes to `hash` (a console session holds the hash,
   * never the secret), or throws 401 `invalid_api_key`.
   */
  async authenticateHash(hash: string): Promise<KeyDoc> {
    return this.active(await this.records.get(hash));
  }

  private active(key: KeyDoc | null): KeyDoc {
    if (!key) throw new GatewayError('invalid_api_key', INVALID);
    if (key.disabled) throw new GatewayError('invalid_api_key', 'This API key is disabled.');
    if (key.expires_at && key.expires_at.getTime() <= this.clock().getTime()) {
      throw new GatewayError('invalid_api_key', 'This API key has expired.');
    }
    return key;
  }

  /** Forgets a key (invalidation from any process). */
  forget(hash: string): void {
    this.records.forget(hash);
  }
}
