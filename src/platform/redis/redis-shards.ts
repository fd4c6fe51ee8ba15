import type { Cluster } from 'ioredis';
import { keySlot } from './key-slot.js';
import { isCluster, type Redis } from './redis.js';

/** Hash slots of a Redis Cluster. */
export const SLOT_COUNT = 16_384;

/** One master and the hash slots it serves (a single Redis serves them all). */
export interface RedisShard {
  /** Stable across a failover: the lowest slot of the shard (0 for a single Redis). */
  readonly id: number;
  /** The master's own connection (the whole client for a single Redis). */
  readonly node: Redis;
  /** The shard's slots; undefined for a single Redis (every slot). */
  readonly slots: readonly number[] | undefined;
  /** A hash tag whose keys live on this shard, the same in every process. */
  readonly tag: string;
}

/** The slots per master as the client sees them now (its view follows MOVED and refreshes). */
function clusterShards(redis: Cluster): RedisShard[] {
  const byMaster = new Map<string, number[]>();
  redis.slots.forEach((owners, slot) => {
    const master = owners?.[0];
    if (master === undefined) return;
    const slots = byMaster.get(master);
    if (slots === undefined) byMaster.set(master, [slot]);
    else slots.push(slot);
  });
  const nodes = new Map(redis.nodes('master').map((n) => [`${n.options.host}:${n.options.port}`, n]));
  const shards: RedisShard[] = [];
  for (const [master, slots] of byMaster) {
    const node = nodes.get(master);
    if (!node || slots.length === 0) continue;
    const owned = new Set(slots);
    let i = 0;
    while (!owned.has(keySlot(`shard-${i}`))) i++;
    shards.push({ id: slots[0] as number, node, slots, tag: `shard-${i}` });
  }
  return shards;
}

/**
 * The shards behind a connection: every master of a cluster with its slots, or the one Redis.
 * Each shard fails over and restarts on its own, so its data is verified on its own too.
 */
export function redisShards(redis: Redis): RedisShard[] {
  if (!isCluster(redis)) return [{ id: 0, node: redis, slots: undefined, tag: '' }];
  return clusterShards(redis);
}

/**
 * What identifies a server's copy of the data: its run id (new on every restart) and its
 * replication id (new when a replica is promoted, which may have lagged). Both unchanged means
 * nothing was lost or rewound since they were recorded.
 */
export async function dataIdentity(node: Redis): Promise<string> {
  // Only the two sections that hold the ids: the full INFO is several times the text, every
  // check. Two plain commands (they leave in one write): a pipeline object costs more to build
  // than both replies cost to read, and every process checks every second.
  const [server, replication] = await Promise.all([node.info('server'), node.info('replication')]);
  const runId = /^run_id:(\w+)/m.exec(server ?? '')?.[1];
  const replId = /^master_replid:(\w+)/m.exec(replication ?? '')?.[1];
  if (!runId) throw new Error('Redis INFO has no run_id');
  return `${runId}:${replId ?? ''}`;
}
