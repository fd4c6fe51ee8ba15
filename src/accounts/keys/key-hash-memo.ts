import { hashKey, isWellFormedKey } from './key-secret.js';

/** The key a connection sent last, and its hash. */
interface Sent {
  readonly raw: string;
  readonly hash: string;
}

/** Compares two strings in time that depends on their length only (a key's length is fixed). */
function sameKey(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Key hashes remembered per connection. A client on a keep-alive connection sends the same key
 * with every request, and hashing it was a tenth of admission's CPU. The raw key stays reachable
 * only from the connection that sent it, and only while that connection lives: no map outlives
 * it, and no other connection can learn or use it. Only the key's hash is looked up: a key
 * disabled or changed since is still refused at once through the records cache.
 */
export class KeyHashMemo {
  private readonly sent = new WeakMap<object, Sent>();

  constructor(private readonly hash: (raw: string) => string = hashKey) {}

  /**
   * The hash of `raw`, computed once per run of the same key on `connection`; undefined when
   * `raw` does not have a key's shape (a key sent again was checked when it was first sent).
   */
  hashOf(raw: string, connection: object | undefined): string | undefined {
    const last = connection === undefined ? undefined : this.sent.get(connection);
    if (last !== undefined && sameKey(last.raw, raw)) return last.hash;
    if (!isWellFormedKey(raw)) return undefined;
    const hash = this.hash(raw);
    if (connection === undefined) return hash;
    this.sent.set(connection, { raw, hash });
    return hash;
  }
}
