/** Longest time an answer is kept or accepted: 30 days. */
export const MAX_TTL_SECONDS = 30 * 24 * 3600;

/**
 * What a request asks of the cache: `off` (not opted in: no lookup, nothing stored), `bypass`
 * (`no-cache`: no lookup; a fresh answer is still stored when a TTL applies; `no-store`: nor
 * that), or `use` (look up, and store a miss's answer for `ttlSeconds`).
 */
export type CachePolicy = { readonly mode: 'off' } | { readonly mode: 'bypass'; readonly ttlSeconds: number | undefined } | { readonly mode: 'use'; readonly ttlSeconds: number };

/** The request headers the policy reads. */
export interface CacheHeaders {
  /** `X-Farebox-Cache`. */
  readonly farebox?: string | undefined;
  /** `Cache-Control`. */
  readonly cacheControl?: string | undefined;
}

/** Reads the cache's request headers through a header getter (Koa's `ctx.get`: '' when absent). */
export function cacheHeadersOf(get: (name: string) => string): CacheHeaders {
  return { farebox: get('x-farebox-cache') || undefined, cacheControl: get('cache-control') || undefined };
}

interface Directives {
  noCache: boolean;
  noStore: boolean;
  maxAge: number | undefined;
}

/** What a request without the header asks: nothing. */
const NO_DIRECTIVES: Directives = Object.freeze({ noCache: false, noStore: false, maxAge: undefined });

/** Reads `no-cache`, `no-store` and `max-age=N` from a Cache-Control-style header. */
function directives(header: string | undefined): Directives {
  // Most requests send neither header: nothing to split and lower-case.
  if (!header) return NO_DIRECTIVES;
  const found: Directives = { noCache: false, noStore: false, maxAge: undefined };
  for (const raw of header.split(',')) {
    const [name = '', value] = raw.trim().toLowerCase().split('=', 2);
    if (name === 'no-cache') found.noCache = true;
    // As in HTTP: the answer to this request is not kept either.
    if (name === 'no-store') found.noStore = true;
    // Only plain digits count: a malformed max-age opts in to nothing rather than to a guess.
    if (name === 'max-age' && value !== undefined && /^\d{1,10}$/.test(value.trim())) found.maxAge = Math.min(Number(value.trim()), MAX_TTL_SECONDS);
  }
  return found;
}

/**
 * The request's cache policy from its headers and its key's `cache_ttl_seconds`. A header's
 * `max-age` wins over the key's TTL (0 turns the cache off for the request); either header may
 * say `no-cache`. The TTL is also the oldest answer the request accepts, as `max-age` means in
 * HTTP: an entry older than it is a miss.
 */
export function cachePolicy(headers: CacheHeaders, keyTtlSeconds: number | undefined): CachePolicy {
  const own = directives(headers.farebox);
  const http = directives(headers.cacheControl);
  const maxAge = own.maxAge ?? http.maxAge ?? keyTtlSeconds;
  const ttl = maxAge !== undefined && maxAge > 0 ? Math.min(maxAge, MAX_TTL_SECONDS) : undefined;
  if (own.noStore || http.noStore) return { mode: 'bypass', ttlSeconds: undefined };
  if (own.noCache || http.noCache) return { mode: 'bypass', ttlSeconds: ttl };
  return ttl === undefined ? { mode: 'off' } : { mode: 'use', ttlSeconds: ttl };
}
