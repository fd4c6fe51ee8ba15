import { Cluster, Redis as SingleRedis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { clusterNodesOf, redisTlsOptions, redisUrlOf, type RedisTarget } from './redis-tls.js';

/** A connection to one Redis or to a Redis Cluster: the code speaks to both the same way. */
export type Redis = SingleRedis | Cluster;

/** How a connection behaves while Redis is away. */
export interface ConnectionProfile {
  /** Queue commands while disconnected (workers, subscribers) or fail them at once (webs). */
  readonly offlineQueue: boolean;
  /** ioredis `maxRetriesPerRequest`: null for BullMQ's blocking commands. */
  readonly maxRetriesPerRequest: number | null;
  readonly connectTimeoutMs: number;
  /** Longest pause between reconnect attempts. */
  readonly maxBackoffMs: number;
  /** One subscriber per master for SSUBSCRIBE (cluster only). */
  readonly shardedSubscribers?: boolean;
}

/**
 * Web-side profile: commands fail fast while disconnected (no offline queue) so that callers
 * answer 503 instead of hanging, and the client keeps reconnecting in the background.
 */
export const FAIL_FAST: ConnectionProfile = { offlineQueue: false, maxRetriesPerRequest: 1, connectTimeoutMs: 2_000, maxBackoffMs: 1_000 };

/**
 * Worker and listener profile: BullMQ requires `maxRetriesPerRequest: null` for blocking
 * commands, and these connections should wait out a Redis restart, so commands queue while
 * disconnected and the client reconnects forever.
 */
export const WAIT_IT_OUT: ConnectionProfile = { offlineQueue: true, maxRetriesPerRequest: null, connectTimeoutMs: 5_000, maxBackoffMs: 2_000 };

function backoff(profile: ConnectionProfile): (attempt: number) => number {
  return (attempt) => Math.min(attempt * 100, profile.maxBackoffMs);
}

function nodeOptions(target: RedisTarget, url: string, name: string, profile: ConnectionProfile): RedisOptions {
  return {
    ...redisTlsOptions(target, url),
    connectionName: name,
    enableOfflineQueue: profile.offlineQueue,
    maxRetriesPerRequest: profile.maxRetriesPerRequest,
    connectTimeout: profile.connectTimeoutMs,
    retryStrategy: backoff(profile),
  };
}

/** Credentials of the first seed that carries any (every node of a cluster shares them). */
function credentials(urls: readonly string[]): Pick<RedisOptions, 'username' | 'password'> {
  for (const url of urls) {
    const u = new URL(url);
    if (u.password || u.username) return { username: decodeURIComponent(u.username) || undefined, password: decodeURIComponent(u.password) || undefined };
  }
  return {};
}

function cluster(target: RedisTarget, urls: readonly string[], name: string, profile: ConnectionProfile): Cluster {
  const seeds = urls.map((url) => {
    const u = new URL(url);
    return { host: u.hostname, port: Number(u.port || 6379) };
  });
  const first = urls[0] as string;
  const options: ClusterOptions = {
    redisOptions: { ...nodeOptions(target, first, name, profile), ...credentials(urls) },
    enableOfflineQueue: profile.offlineQueue,
    clusterRetryStrategy: backoff(profile),
    // No reconnecting to a lost node: a command queued on a dead master would wait for it for
    // good; the slot refresh (on MOVED, on a lost connection, and every 2 s) finds its successor.
    slotsRefreshInterval: 2_000,
    // A failover moves slots: follow MOVED / TRYAGAIN / CLUSTERDOWN a few times before failing.
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 200,
    retryDelayOnTryAgain: 200,
    slotsRefreshTimeout: 2_000,
    shardedSubscribers: profile.shardedSubscribers ?? false,
    // Managed services (ElastiCache TLS) present certificates for their DNS names, not IPs.
    ...(/^rediss:/i.test(first) ? { dnsLookup: (address: string, callback: (err: null, address: string) => void) => callback(null, address) } : {}),
  };
  return new Cluster(seeds, options);
}

const coalescing = new WeakSet<SingleRedis>();

/**
 * Makes the commands one client sends while the event loop works through its ready sockets
 * leave in one socket write. A write to a loopback or LAN socket runs much of the receiver's
 * network stack in the sender's system call, and a busy web sends two admission scripts per
 * request, each its own write (a worker, several BullMQ commands per job); corked until the
 * loop's check phase, the commands of every request or job handled in that pass go out together.
 * A command sent from the check phase itself waits for the next one, which the loop reaches
 * without blocking. Calling it again on the same client does nothing.
 */
export function coalesceWrites(client: SingleRedis): void {
  if (coalescing.has(client)) return;
  coalescing.add(client);
  let corked: SingleRedis['stream'] | undefined;
  const flush = () => {
    corked?.uncork();
    corked = undefined;
  };
  const send = client.sendCommand.bind(client);
  client.sendCommand = (command, stream) => {
    if (corked === undefined && client.stream?.writable) {
      corked = client.stream;
      corked.cork();
      setImmediate(flush);
    }
    return send(command, stream);
  };
}

/**
 * The one place Redis connections are made: a cluster client when the target names cluster
 * nodes (`REDIS_CLUSTER_NODES`), else a single-node client. `rediss://` targets connect over
 * TLS, with the verification setting the target carries.
 */
export function connectRedis(target: RedisTarget, name: string, profile: ConnectionProfile): Redis {
  const nodes = clusterNodesOf(target);
  if (nodes) {
    const redis = cluster(target, nodes, name, profile);
    // Nodes join as the cluster discovers them; any already there coalesce as well.
    redis.on('+node', (node: SingleRedis) => coalesceWrites(node));
    for (const node of redis.nodes()) coalesceWrites(node);
    return redis;
  }
  const url = redisUrlOf(target);
  const redis = new SingleRedis(url, { ...nodeOptions(target, url, name, profile), lazyConnect: false });
  coalesceWrites(redis);
  return redis;
}

/** A connection for admission state and caches (fails fast while Redis is away). */
export function createRedis(target: RedisTarget, name: string): Redis {
  return connectRedis(target, name, FAIL_FAST);
}

/** A connection that only listens: SSUBSCRIBE through one subscriber per master on a cluster. */
export function createSubscriber(target: RedisTarget, name: string): Redis {
  return connectRedis(target, name, { ...WAIT_IT_OUT, shardedSubscribers: true });
}

/** Whether a connection is a cluster client. */
export function isCluster(redis: Redis): redis is Cluster {
  return redis instanceof Cluster;
}

/** Resolves once the client is ready (used at boot, where waiting is the right thing). */
export async function waitReady(redis: Redis, timeoutMs = 10_000): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('Redis not ready in time')), timeoutMs);
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export type { RedisTarget };
