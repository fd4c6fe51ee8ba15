import { hashKey, isWellFormedKey } from './key-secret.js';

/** What a connection sent last (a key, or the header carrying it), and the key's hash. */
interface Sent {
  readonly sent: string;
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
 * (the same Authorization header) with every request, and hashing it was a tenth of admission's
 * CPU, parsing the header another fiftieth. The raw key stays reachable only from the
 * connection that sent it, and only while that connection lives: no map outlives it, and no
 * other connection can learn or use it. Only the key's hash is looked up: a key disabled or
 * changed since is still refused at once through the records cache.
 */
export class KeyHashMemo {
  private readonly sent = new WeakMap<object, Sent>();

  constructor(private readonly hash: (raw: string) => string = hashKey) {}

  /**
   * The hash of the key in `sent` (`token` takes it out: a header's value, say), computed once
   * per run of the same `sent` on `connection`; undefined when there is none or it does not
   * have a key's shape. Something sent again was taken apart and checked when it was first sent.
   */
  hashOf(sent: string, connection: object | undefined, token: (sent: string) => string | undefined = (raw) => raw): string | undefined {
    const last = connection === undefined ? undefined : this.sent.get(connection);
    if (last !== undefined && sameKey(last.sent, sent)) return last.hash;
    const raw = token(sent);
    if (raw === undefined || !isWellFormedKey(raw)) return undefined;
    const hash = this.hash(raw);
    if (connection === undefined) return hash;
    this.sent.set(connection, { sent, hash });
    return hash;
  }
}
