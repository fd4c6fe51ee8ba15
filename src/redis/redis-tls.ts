import type { RedisOptions } from 'ioredis';

/**
 * Where a Redis connection goes: a URL, or a URL with the TLS verification setting from the
 * configuration. A bare string verifies certificates (Node's default) for `rediss://` URLs.
 */
export type RedisTarget = string | { readonly url: string; readonly tlsRejectUnauthorized: boolean };

/** The URL of a target. */
export function redisUrlOf(target: RedisTarget): string {
  return typeof target === 'string' ? target : target.url;
}

/**
 * TLS options for a connection. `rediss://` already turns TLS on in ioredis; only when the
 * operator has turned verification off (managed Redis with a self-signed certificate, such as
 * Heroku Redis) do we pass `rejectUnauthorized: false`. Plain `redis://` URLs never get TLS.
 */
export function redisTlsOptions(target: RedisTarget): Pick<RedisOptions, 'tls'> {
  if (typeof target === 'string' || target.tlsRejectUnauthorized) return {};
  if (!/^rediss:\/\//i.test(target.url)) return {};
  return { tls: { rejectUnauthorized: false } };
}
