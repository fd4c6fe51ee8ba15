import type { ClientSession } from 'mongodb';
import { daysSoFar, type SpendWindow } from '../../billing/index.js';
import type { KeyDoc, SharedLimits } from './key-types.js';
import type { KeyCollections } from './key-collections.js';
import { lifetimeSpend } from './lifetime-spend.js';
import { capRoom, minuteFigures, sharedCaps, SPEND_WINDOWS, type ScopeFigures, type UsageScope } from './limit-usage.js';

/** Live figures about a key that admission knows better than MongoDB (in-flight holds, RPM). */
export interface KeyLiveUsage {
  heldUsd: bigint;
  requestsThisMinute: number;
  /** The per-minute limit that applies when the key has none of its own (free tier). */
  minuteLimit?: number;
  /** Figures of the key's account and of the calling end user, when admission has them. */
  shared?: SharedLiveUsage;
}

/** Live use of the limits beyond the key's own spend caps: tokens, account, end user. */
export interface SharedLiveUsage {
  /** Tokens reserved or billed in the last minute by the key. */
  keyTokens: number;
  /** The account's limits across its keys. */
  accountLimits: SharedLimits;
  accountHeldUsd: bigint;
  accountRequests: number;
  accountTokens: number;
  /** The calling end user (named by `X-Farebox-End-User`, `?end_user=` or the request's `user`). */
  endUser?: { id: string; tag: string; heldUsd: bigint; requests: number; tokens: number };
}

/** Spend of one owner per calendar window, nano-USD. */
export interface PeriodSpend {
  day: bigint;
  week: bigint;
  month: bigint;
}

/**
 * Day, week and month spend of a key (or account, or end user: `<key>:u:<tag>`) at `at`: the
 * sums of its day buckets (see `daysSoFar`), read in one query (inside `session`, if given).
 */
export async function periodSpend(c: KeyCollections, owner: string, at: Date, session?: ClientSession): Promise<PeriodSpend> {
  const days = { day: daysSoFar('day', at), week: daysSoFar('week', at), month: daysSoFar('month', at) };
  const ids = [...new Set([...days.week, ...days.month])].map((day) => `${owner}:${day}`);
  const docs = await c.keySpend.find({ _id: { $in: ids } }, { session, projection: { amount: 1 } }).toArray();
  const amounts = new Map(docs.map((d) => [d._id, d.amount]));
  const sum = (list: readonly string[]) => list.reduce((total, day) => total + (amounts.get(`${owner}:${day}`) ?? 0n), 0n);
  return { day: sum(days.day), week: sum(days.week), month: sum(days.month) };
}

/** Every limit that applies to a key now: its own, its account's and the named end user's. */
export interface KeyLimitFigures {
  /** The key's own spend, lifetime included (read fresh: the authenticated key may be cached). */
  readonly keySpend: PeriodSpend & { lifetime: bigint };
  /** One entry per scope that has figures: key first, then account, then end user. */
  readonly scopes: readonly ScopeFigures[];
}

/** How much one spend cap has left now (its cap less spend and in-flight holds; may be below 0). */
export interface CapRoom {
  readonly scope: UsageScope;
  readonly window: SpendWindow;
  readonly room: bigint;
}

/**
 * Reads the figures behind every limit of a key: the one place that decides which caps apply
 * (the key's, its account's, and the end user's when the caller names one), so what
 * `GET /v1/key` shows and what `/v1/quote` checks cannot drift apart.
 */
export async function keyLimitFigures(c: KeyCollections, now: Date, key: KeyDoc, live: KeyLiveUsage): Promise<KeyLimitFigures> {
  const shared = live.shared;
  const account = shared?.accountLimits;
  const user = key.limits.end_user_limits;
  const named = user ? shared?.endUser : undefined;
  const none = Promise.resolve(undefined);
  const [spend, fresh, accountSpend, userSpend] = await Promise.all([
    periodSpend(c, key._id, now),
    c.keys.findOne({ _id: key._id }, { projection: { spend: 1 } }).then((doc) => lifetimeSpend(c, [doc ?? key])),
    account?.spend_cap ? periodSpend(c, key.account_id, now) : none,
    named && user?.spend_cap ? periodSpend(c, `${key._id}:u:${named.tag}`, now) : none,
  ]);
  const keySpend = { ...spend, lifetime: fresh.get(key._id) ?? key.spend };
  const scopes: ScopeFigures[] = [
    {
      scope: 'key',
      caps: key.limits.spend_cap ?? {},
      spend: keySpend,
      heldUsd: live.heldUsd,
      rpm: minuteFigures(key.limits.rpm ?? live.minuteLimit, live.requestsThisMinute),
      tpm: minuteFigures(key.limits.tpm, shared?.keyTokens ?? 0),
    },
  ];
  if (shared && account) {
    scopes.push({
      scope: 'account',
      caps: sharedCaps(account),
      spend: accountSpend ?? {},
      heldUsd: shared.accountHeldUsd,
      rpm: minuteFigures(account.rpm, shared.accountRequests),
      tpm: minuteFigures(account.tpm, shared.accountTokens),
    });
  }
  if (user && named) {
    scopes.push({
      scope: 'end_user',
      caps: sharedCaps(user),
      spend: userSpend ?? {},
      heldUsd: named.heldUsd,
      rpm: minuteFigures(user.rpm, named.requests),
      tpm: minuteFigures(user.tpm, named.tokens),
    });
  }
  return { keySpend, scopes };
}

/** The room each spend cap of the figures leaves, scope by scope, window by window. */
export function capRooms(figures: KeyLimitFigures): CapRoom[] {
  const rooms: CapRoom[] = [];
  for (const f of figures.scopes) {
    for (const window of SPEND_WINDOWS) {
      const room = capRoom(f, window);
      if (room !== undefined) rooms.push({ scope: f.scope, window, room });
    }
  }
  return rooms;
}

/** The room of one scope's cap on one window, when that cap is set. */
export function roomOf(rooms: readonly CapRoom[], scope: UsageScope, window: SpendWindow): bigint | undefined {
  return rooms.find((r) => r.scope === scope && r.window === window)?.room;
}
