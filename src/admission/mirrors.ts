import type { MongoClient } from 'mongodb';
import type { Redis } from '../platform/redis/index.js';
import type { AdmissionKeys } from './admission-keys.js';
import { readMirrorSnapshot, type MirrorName } from './mirror-snapshot.js';
import { runScript } from './lua-commands.js';
import type { AccountCollections, KeyCollections } from '../accounts/index.js';
import type { LedgerCollections } from '../ledger/index.js';
import { mirrorScriptKeys, spendMirrorKey } from './script-keys.js';
import { spendMirror } from '../billing/index.js';

export type { MirrorName } from './mirror-snapshot.js';

/** How long a mirror lives before it is re-read from MongoDB (the ledger is the truth). */
export const MIRROR_TTL_MS = 120_000;
/** How long an invalidation is remembered (far longer than any rebuild takes). */
const VERSION_TTL_MS = 3_600_000;
/** Reads of MongoDB per load before giving up (the caller's admission loop retries too). */
const MAX_READS = 3;

/** Whose mirrors to load, and when (the periods). */
interface Who {
  readonly accountId: string;
  readonly keyId: string;
  readonly at: Date;
  readonly endUser: string | undefined;
}

/** Where a loader finds the stores and how far back a charge may still be settling. */
export interface MirrorLoaderDeps {
  readonly redis: Redis;
  readonly client: MongoClient;
  readonly c: AccountCollections & KeyCollections & LedgerCollections;
  readonly keys: AdmissionKeys;
  /** Longest time from a charge's `created_at` to its FINISH (the hold TTL bounds it). */
  readonly settleWindowMs: number;
  /**
   * Charges are acknowledged from the local spool (`LEDGER_ACK=local`), so their FINISH carries
   * no chain position, and may run after the drain committed them: a rebuild then lists the
   * ids of the settle window's charges, for FINISH to find its own among them. Otherwise
   * FINISH compares its charge's position with the rebuild's chain head, and a rebuild reads
   * no more than the charges it is asked about, however busy the account.
   */
  readonly spooledAcks?: boolean;
  /** Resolves once every charge acknowledged so far is in MongoDB (see SpoolingLedger.settled). */
  readonly settled?: () => Promise<void>;
  /** Reads MongoDB (defaults to readMirrorSnapshot; tests pause it to force interleavings). */
  readonly readSnapshot?: typeof readMirrorSnapshot;
}

/**
 * Rebuilds Redis mirrors of MongoDB figures (account balance, key spend per period) exactly:
 * the figures and the account's chain head (which charges they contain) come from one MongoDB
 * snapshot, and the load-mirror script reconciles them with charges that settled in Redis around
 * that read, so a charge is counted once whether its FINISH ran before, during or after the
 * rebuild.
 */
export class MirrorLoader {
  /** Loads in flight, by the Redis keys of their mirrors. */
  private readonly loading = new Map<string, Promise<void>>();

  constructor(private readonly d: MirrorLoaderDeps) {}

  /**
   * Loads the named mirrors of an account and key (and end user, by tag) for the periods of
   * `at` (if still missing). Requests that find the same mirrors missing at once share one
   * load: a load is a MongoDB snapshot transaction and a script per mirror (under `local`, with
   * every charge of the settle window), which a burst would otherwise run once per request.
   */
  load(names: readonly MirrorName[], accountId: string, keyId: string, at: Date, endUser?: string): Promise<void> {
    const who = { accountId, keyId, at, endUser };
    const flight = names.map((name) => this.mirrorKey(name, who)).join(' ');
    const running = this.loading.get(flight);
    if (running) return running;
    const loading = this.loadAll([...names], who).finally(() => this.loading.delete(flight));
    this.loading.set(flight, loading);
    return loading;
  }

  private async loadAll(names: MirrorName[], who: Who): Promise<void> {
    let todo = names;
    for (let read = 0; read < MAX_READS && todo.length > 0; read++) todo = await this.loadOnce(todo, who);
  }

  /** Drops an account's balance mirror; the next request rebuilds it from MongoDB. */
  async invalidateBalance(accountId: string): Promise<void> {
    const mirror = this.d.keys.balance(accountId);
    const [, , , version] = mirrorScriptKeys(this.d.keys, mirror);
    await runScript(this.d.redis, 'invalidate-mirror', [mirror, version as string], [VERSION_TTL_MS]);
  }

  /** One MongoDB read for the given mirrors; returns those that must be read again. */
  private async loadOnce(names: MirrorName[], who: Who): Promise<MirrorName[]> {
    const { keys, redis } = this.d;
    const { accountId, keyId, at, endUser } = who;
    const mirrors = names.map((name) => this.mirrorKey(name, who));
    const versions = await Promise.all(mirrors.map((m) => redis.get(keys.mirrorVersion(m))));
    // A charge acknowledged but only spooled is not in MongoDB yet, so the snapshot would miss
    // it. Waited for after the versions are read: a mirror dropped before that read only held
    // charges acknowledged before it, now drained; one dropped after it changed the version.
    await this.d.settled?.();
    const pending = await Promise.all(mirrors.map((m) => redis.hkeys(keys.unapplied(m))));
    // Fields starting with '#' say how the last rebuild was made; the rest are request ids.
    const checkIds = [...new Set(pending.flat().filter((id) => !id.startsWith('#')))];
    const since = this.d.spooledAcks ? new Date(at.getTime() - this.d.settleWindowMs) : undefined;
    const snap = await (this.d.readSnapshot ?? readMirrorSnapshot)(this.d.client, this.d.c, { names, accountId, keyId, endUser, at, since, checkIds });
    const again: MirrorName[] = [];
    for (const [i, name] of names.entries()) {
      const m = mirrors[i] as string;
      const figure = snap.figures.get(name) ?? 0n;
      const args = [figure.toString(), MIRROR_TTL_MS, versions[i] ?? '0', snap.head, since?.getTime() ?? -1, checkIds.length, ...checkIds, ...snap.chargeIds];
      const reply = await runScript(redis, 'load-mirror', mirrorScriptKeys(keys, m), args);
      if (reply === 'stale' || reply === 'retry') again.push(name);
    }
    return again;
  }

  private mirrorKey(name: MirrorName, who: Who): string {
    if (name === 'balance') return this.d.keys.balance(who.accountId);
    const m = spendMirror(name);
    if (!m) throw new Error(`unknown mirror ${name}`);
    return spendMirrorKey(this.d.keys, { ...who, requestId: '' }, m);
  }
}
