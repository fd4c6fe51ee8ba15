import { dayPeriod, monthPeriod } from '../billing/periods.js';
import type { Collections } from '../db/collections.js';
import type { Redis } from '../redis/redis.js';
import type { AdmissionKeys } from './admission-keys.js';

/** How long a mirror lives before it is re-read from MongoDB (the ledger is the truth). */
export const MIRROR_TTL_MS = 120_000;

/** A mirror the admission script found missing. */
export type MirrorName = 'balance' | 'lifetime' | 'day' | 'month';

/**
 * Rebuilds Redis mirrors of MongoDB figures (account balance, key spend per period).
 * Rebuilt values are written only if still missing, so a concurrent rebuild or charge that
 * got there first is not overwritten.
 */
export class MirrorLoader {
  constructor(
    private readonly redis: Redis,
    private readonly c: Collections,
    private readonly keys: AdmissionKeys,
  ) {}

  /** Loads the named mirrors of an account and key for the periods of `at`. */
  async load(names: readonly MirrorName[], accountId: string, keyId: string, at: Date): Promise<void> {
    await Promise.all(names.map((name) => this.loadOne(name, accountId, keyId, at)));
  }

  /** Overwrites the balance mirror with MongoDB's balance (re-check before refusing). */
  async resyncBalance(accountId: string): Promise<void> {
    const balance = await this.readBalance(accountId);
    await this.redis.set(this.keys.balance(accountId), balance.toString(), 'PX', MIRROR_TTL_MS);
  }

  private async loadOne(name: MirrorName, accountId: string, keyId: string, at: Date): Promise<void> {
    const [redisKey, value] = await this.read(name, accountId, keyId, at);
    await this.redis.set(redisKey, value.toString(), 'PX', MIRROR_TTL_MS, 'NX');
  }

  private async read(name: MirrorName, accountId: string, keyId: string, at: Date): Promise<[string, bigint]> {
    switch (name) {
      case 'balance':
        return [this.keys.balance(accountId), await this.readBalance(accountId)];
      case 'lifetime': {
        const key = await this.c.keys.findOne({ _id: keyId }, { projection: { spend: 1 } });
        return [this.keys.spendLifetime(accountId, keyId), key?.spend ?? 0n];
      }
      case 'day':
        return [this.keys.spendDay(accountId, keyId, at), await this.readPeriod(`${keyId}:${dayPeriod(at)}`)];
      case 'month':
        return [this.keys.spendMonth(accountId, keyId, at), await this.readPeriod(`${keyId}:${monthPeriod(at)}`)];
    }
  }

  private async readBalance(accountId: string): Promise<bigint> {
    const account = await this.c.accounts.findOne({ _id: accountId }, { projection: { balance: 1 } });
    return account?.balance ?? 0n;
  }

  private async readPeriod(id: string): Promise<bigint> {
    const doc = await this.c.keySpend.findOne({ _id: id }, { projection: { amount: 1 } });
    return doc?.amount ?? 0n;
  }
}
