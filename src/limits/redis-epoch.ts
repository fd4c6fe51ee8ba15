import type { Logger } from 'pino';
import { randomBytes } from 'node:crypto';
import type { Redis } from '../redis/redis.js';
import type { AdmissionKeys } from './admission-keys.js';
import type { LeaseRefresher } from './lease-refresher.js';
import { runScript } from './lua-commands.js';

/** How often a connected process re-checks the epoch (catches FLUSHALL without a reconnect). */
const CHECK_INTERVAL_MS = 1_000;
/**
 * After a new generation starts, nothing is admitted on it for this long, so every connected
 * process (reconnecting, or at its periodic check) has re-placed its running requests' holds.
 */
const SETTLE_MS = 2 * CHECK_INTERVAL_MS + 500;

function runIdOf(info: string): string {
  const match = /^run_id:(\w+)/m.exec(info);
  if (!match?.[1]) throw new Error('Redis INFO has no run_id');
  return match[1];
}

/**
 * Proves that admission state in Redis is current before anything is admitted on it. The
 * server's run id is recorded next to a generation; every (re)connect, and a periodic check,
 * compare it with the live server's. When Redis may have lost or rewound data, a new
 * generation starts: admission key names carry it, so mirrors are rebuilt from MongoDB and
 * stale holds from a snapshot are ignored, and this process re-places the holds and slots of
 * its running requests so the rewind frees none of their money.
 */
export class RedisEpoch {
  private verified: Promise<void> | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly redis: Redis,
    private readonly keys: AdmissionKeys,
    private readonly refresher: LeaseRefresher,
    private readonly log: Logger,
  ) {
    redis.on('close', () => (this.verified = undefined));
    redis.on('ready', () => {
      this.verified = undefined;
      this.ready().catch(() => undefined);
    });
    this.timer = setInterval(() => {
      if (this.redis.status !== 'ready') return;
      this.verified = undefined;
      this.ready().catch(() => undefined);
    }, CHECK_INTERVAL_MS);
    this.timer.unref();
    // Checked at boot already, so a fresh generation has settled before the first request.
    if (redis.status === 'ready') this.ready().catch(() => undefined);
  }

  /** Resolves once the generation in use is verified against the connected server. */
  ready(): Promise<void> {
    if (!this.verified) {
      const check = this.verify().catch((err: unknown) => {
        if (this.verified === check) this.verified = undefined;
        throw err;
      });
      this.verified = check;
    }
    return this.verified;
  }

  /** Stops the periodic check. */
  stop(): void {
    clearInterval(this.timer);
  }

  private async verify(): Promise<void> {
    const runId = runIdOf(await this.redis.info('server'));
    const reply = await runScript(this.redis, 'epoch', [this.keys.epoch()], [runId, randomBytes(6).toString('hex'), SETTLE_MS]);
    const [generation, settleMs] = Array.isArray(reply) ? [String(reply[0]), Number(reply[1])] : ['', 0];
    if (!generation) throw new Error('unexpected epoch script reply');
    if (generation !== this.keys.generation) await this.adopt(generation);
    // A fresh generation: give the other processes time to re-place their holds first.
    if (settleMs > 0) await new Promise((r) => setTimeout(r, settleMs));
  }

  private async adopt(generation: string): Promise<void> {
    const previous = this.keys.generation;
    this.keys.generation = generation;
    try {
      await this.refresher.replaceAll();
    } catch (err) {
      // Not verified until the holds are back: the next check places them again.
      this.keys.generation = previous;
      throw err;
    }
    if (previous !== '0') this.log.warn({ generation }, 'Redis lost or rewound admission state; mirrors are rebuilt from MongoDB');
  }
}
