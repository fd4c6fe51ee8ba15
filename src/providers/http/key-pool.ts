import { GatewayError, type GatewayError as GatewayErrorType } from '../../platform/errors/index.js';
import { keyTrailOf } from './key-trail.js';
import type { UpstreamClient, UpstreamRequestOptions } from './upstream-client.js';

/** One upstream key: the variable that names it (shown in logs) and its value (never shown). */
export interface PoolKey {
  readonly env: string;
  readonly value: string;
}

/** Told when a key is set aside, so it can be counted and logged by its variable's name. */
export type KeySetAside = (event: { provider: string; keyEnv: string; reason: string }) => void;

/** How long a refused key stays aside before it is tried again (an operator may have topped it up). */
const SET_ASIDE_MS = 10 * 60_000;

/**
 * The keys of one provider. Requests take them in turn (round robin); a key the vendor
 * refused (401/403, or `insufficient_quota`) is set aside for a while.
 */
export class KeyPool {
  private next = 0;
  private readonly asideUntil = new Map<string, number>();

  constructor(
    readonly provider: string,
    private readonly keys: readonly PoolKey[],
    private readonly onSetAside: KeySetAside = () => undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** The next usable key, or undefined when every key is set aside. */
  pick(): PoolKey | undefined {
    const at = this.now();
    for (let i = 0; i < this.keys.length; i += 1) {
      const key = this.keys[(this.next + i) % this.keys.length];
      if (key === undefined || (this.asideUntil.get(key.env) ?? 0) > at) continue;
      this.next = (this.next + i + 1) % this.keys.length;
      return key;
    }
    return undefined;
  }

  /** Sets a key aside if the vendor's error says the key itself is refused; true when it did. */
  judge(key: PoolKey, err: GatewayErrorType): boolean {
    const reason = refusalReason(err);
    if (reason === undefined) return false;
    this.asideUntil.set(key.env, this.now() + SET_ASIDE_MS);
    this.onSetAside({ provider: this.provider, keyEnv: key.env, reason });
    return true;
  }
}

/** Why a vendor's answer means the key is unusable, if it does. */
function refusalReason(err: GatewayErrorType): string | undefined {
  const upstream = err.upstream;
  if (upstream === undefined) return undefined;
  if (upstream.code === 'insufficient_quota') return 'insufficient_quota';
  if (upstream.status === 401 || upstream.status === 403) return `status_${upstream.status}`;
  return undefined;
}

/**
 * A client that sends each request with the pool's next key (in the headers `auth` builds).
 * A key the vendor refuses is set aside and the same request goes on at once with the next
 * usable key; only when none is left does the refusal reach the caller (whose route runner
 * moves on to the next route). With every key aside it fails at once, without a call, with a
 * 503 the failover treats as this route's own failure. Each key used is noted, by variable
 * name, on the key trail of the attempt its signal runs for.
 */
export function keyedClient(client: UpstreamClient, pool: KeyPool, auth: (key: string) => Record<string, string>): UpstreamClient {
  async function withKey<T>(opts: UpstreamRequestOptions, send: (o: UpstreamRequestOptions) => Promise<T>): Promise<T> {
    const trail = keyTrailOf(opts.signal);
    let key = pool.pick();
    if (key === undefined) {
      throw new GatewayError('service_unavailable', 'This model is not available right now.', { upstream: { code: 'keys_exhausted' } });
    }
    for (;;) {
      const entry = trail?.tried(key.env);
      try {
        return await send({ ...opts, headers: { ...opts.headers, ...auth(key.value) } });
      } catch (err) {
        if (!(err instanceof GatewayError) || !pool.judge(key, err)) throw err;
        const next = opts.signal.aborted ? undefined : pool.pick();
        if (next === undefined) throw err;
        if (entry !== undefined) entry.refusal = err;
        key = next;
      }
    }
  }
  return {
    request: (opts) => withKey(opts, (o) => client.request(o)),
    json: (opts) => withKey(opts, (o) => client.json(o)),
  };
}
