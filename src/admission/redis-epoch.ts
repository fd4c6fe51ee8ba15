import type { Logger } from 'pino';
import { randomBytes } from 'node:crypto';
import { dataIdentity, type Redis, type RedisShard, redisShards, SLOT_COUNT } from '../platform/redis/index.js';
import { accountSlot, type AdmissionKeys } from './admission-keys.js';
import type { LeaseRefresher } from './lease-refresher.js';
import { runScript } from './lua-commands.js';

/** How often a connected process re-checks the epochs (catches FLUSHALL without a reconnect). */
const CHECK_INTERVAL_MS = 1_000;
/**
 * After a new generation starts, nothing is admitted on it for this long, so every connected
 * process (reconnecting, or at its periodic check) has re-placed its running requests' holds.
 */
const SETTLE_MS = 2 * CHECK_INTERVAL_MS + 500;

/**
 * Proves that admission state in Redis is current before anything is admitted on it, shard by
 * shard (a single Redis is one shard; a cluster has one per master). Each shard's data
 * identity (run id and replication id of its master) is recorded next to a generation, on the
 * shard itself; every (re)connect, and a periodic check, compare it with the live master's.
 * When a shard may have lost or rewound data (restart, failover to a lagging replica,
 * FLUSHALL), a new generation starts for the accounts whose keys live there: their key names
 * carry it, so their mirrors are rebuilt from MongoDB and stale holds are ignored, and this
 * process re-places the holds and slots of their running requests. Other shards, and a stable
 * cluster, keep their generation.
 */
export class RedisEpoch {
  private readonly verified = new Map<number, Promise<void>>();
  private shards: RedisShard[] = [];
  private readonly slotShard = new Int32Array(SLOT_COUNT).fill(-1);
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly redis: Redis,
    private readonly keys: AdmissionKeys,
    private readonly refresher: LeaseRefresher,
    private readonly log: Logger,
  ) {
    redis.on('close', () => this.verified.clear());
    redis.on('ready', () => this.checkAll());
    this.timer = setInterval(() => {
      if (this.redis.status === 'ready') this.checkAll();
    }, CHECK_INTERVAL_MS);
    this.timer.unref();
    // Checked at boot already, so a fresh generation has settled before the first request.
    if (redis.status === 'ready') this.checkAll();
  }

  /**
   * Resolves once the generation of the shard holding `accountId`'s keys (of every shard when
   * no account is named) is verified against its live master.
   */
  async ready(accountId?: string): Promise<void> {
    if (accountId === undefined) {
      this.refreshTopology();
      await Promise.all(this.shards.map((s) => this.verifiedShard(s)));
      return;
    }
    await this.verifiedShard(this.shardOf(accountId));
  }

  /** Stops the periodic check. */
  stop(): void {
    clearInterval(this.timer);
  }

  private checkAll(): void {
    this.verified.clear();
    this.ready().catch(() => undefined);
  }

  private refreshTopology(): void {
    this.shards = redisShards(this.redis);
    this.slotShard.fill(-1);
    this.shards.forEach((shard, i) => {
      if (shard.slots === undefined) this.slotShard.fill(i);
      else for (const slot of shard.slots) this.slotShard[slot] = i;
    });
  }

  private shardOf(accountId: string): RedisShard {
    const slot = accountSlot(accountId);
    if ((this.slotShard[slot] ?? -1) < 0) this.refreshTopology();
    const shard = this.shards[this.slotShard[slot] ?? -1];
    // Worded as Redis's own reply, so it is classified as a store failover (503).
    if (!shard) throw new Error(`CLUSTERDOWN no master serves hash slot ${slot}`);
    return shard;
  }

  private verifiedShard(shard: RedisShard): Promise<void> {
    let check = this.verified.get(shard.id);
    if (!check) {
      const started = this.verify(shard).catch((err: unknown) => {
        if (this.verified.get(shard.id) === started) this.verified.delete(shard.id);
        throw err;
      });
      check = started;
      this.verified.set(shard.id, check);
    }
    return check;
  }

  private async verify(shard: RedisShard): Promise<void> {
    const identity = await dataIdentity(shard.node);
    const reply = await runScript(shard.node, 'epoch', [this.keys.epoch(shard.tag)], [identity, randomBytes(6).toString('hex'), SETTLE_MS]);
    const [generation, settleMs] = Array.isArray(reply) ? [String(reply[0]), Number(reply[1])] : ['', 0];
    if (!generation) throw new Error('unexpected epoch script reply');
    if (generation !== this.keys.generationOfSlots(shard.slots)) await this.adopt(shard, generation);
    // A fresh generation: give the other processes time to re-place their holds first.
    if (settleMs > 0) await new Promise((r) => setTimeout(r, settleMs));
  }

  private async adopt(shard: RedisShard, generation: string): Promise<void> {
    const previous = this.keys.generationOfSlots(shard.slots);
    this.keys.setGeneration(shard.slots, generation);
    const slots = shard.slots === undefined ? undefined : new Set(shard.slots);
    try {
      await this.refresher.replaceAll((accountId) => slots === undefined || slots.has(accountSlot(accountId)));
    } catch (err) {
      // Not verified until the holds are back: the next check places them again.
      this.keys.setGeneration(shard.slots, previous);
      throw err;
    }
    if (previous !== '0') this.log.warn({ generation, shard: shard.id }, 'a Redis shard lost or rewound admission state; its mirrors are rebuilt from MongoDB');
  }
}
