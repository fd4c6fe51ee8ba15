import type { RedisOptions } from 'ioredis';

/**
 * Where Redis connections go: a URL, or a URL with the TLS verification setting from the
 * configuration. A bare string verifies certificates (Node's default) for `rediss://` URLs.
 * With `clusterNodes` (seed URLs of a Redis Cluster) every connection is a cluster client and
 * `url` is only the first seed.
 */
export type RedisTarget =
  | string
  | { readonly url: string; readonly tlsRejectUnauthorized: boolean; readonly clusterNodes?: readonly string[] | undefined };

/** The URL of a target. */
export function redisUrlOf(target: RedisTarget): string {
  return typeof target === 'string' ? target : target.url;
}

/** The seed URLs of a Redis Cluster target, or undefined for a single Redis. */
export function clusterNodesOf(target: RedisTarget): readonly string[] | undefined {
  if (typeof target === 'string' || !target.clusterNodes || target.clusterNodes.length === 0) return undefined;
  return target.clusterNodes;
}

/**
 * TLS options for a connection to `url`. `rediss://` already turns TLS on in ioredis; only when
 * the operator has turned verification off (managed Redis with a self-signed certificate, such
 * as Heroku Redis) do we pass `rejectUnauthorized: false`. Plain `redis://` URLs never get TLS.
 */
export function redisTlsOptions(target: RedisTarget, url = redisUrlOf(target)): Pick<RedisOptions, 'tls'> {
  if (!/^rediss:\/\//i.test(url)) return {};
  if (typeof target === 'string' || target.tlsRejectUnauthorized) return clusterNodesOf(target) ? { tls: {} } : {};
  return { tls: { rejectUnauthorized: false } };
}
