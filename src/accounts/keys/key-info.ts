import { toUsdNumber, maxBig } from '../../billing/money.js';
import { dayPeriod, monthPeriod, weekPeriod, type Clock } from '../../billing/periods.js';
import type { KeyDoc, SharedLimits } from './key-types.js';
import { toLimitsView } from './key-view.js';
import { minuteFigures, scopeUsage, sharedCaps, type LimitUsage, type WindowSpend } from './limit-usage.js';
import type { KeyCollections } from './key-collections.js';

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
  /** The calling end user (named by `X-Farebox-End-User` or `?end_user=`). */
  endUser?: { id: string; tag: string; heldUsd: bigint; requests: number; tokens: number };
}

/** Day, week and month spend of a key (or account, or end user: see `bucketOwner`) from its spend buckets. */
export async function periodSpend(c: KeyCollections, owner: string, at: Date): Promise<{ day: bigint; week: bigint; month: bigint }> {
  const ids = [`${owner}:${dayPeriod(at)}`, `${owner}:${weekPeriod(at)}`, `${owner}:${monthPeriod(at)}`];
  const docs = await c.keySpend.find({ _id: { $in: ids } }).toArray();
  const amount = (id: string | undefined) => docs.find((d) => d._id === id)?.amount ?? 0n;
  return { day: amount(ids[0]), week: amount(ids[1]), month: amount(ids[2]) };
}

function remaining(cap: bigint | undefined, used: bigint): number | null {
  return cap === undefined ? null : toUsdNumber(maxBig(cap - used, 0n));
}

function minuteRemaining(limit: number | undefined, used: number): number | null {
  return limit === undefined ? null : Math.max(limit - used, 0);
}

/** The rows of every limit that applies: the key's, its account's, the calling end user's. */
async function limitRows(c: KeyCollections, now: Date, key: KeyDoc, keySpend: WindowSpend, live: KeyLiveUsage): Promise<LimitUsage[]> {
  const shared = live.shared;
  const rows = scopeUsage(
    {
      scope: 'key',
      caps: key.limits.spend_cap ?? {},
      spend: keySpend,
      heldUsd: live.heldUsd,
      rpm: minuteFigures(key.limits.rpm ?? live.minuteLimit, live.requestsThisMinute),
      tpm: minuteFigures(key.limits.tpm, shared?.keyTokens ?? 0),
    },
    now,
  );
  if (!shared) return rows;
  const account = shared.accountLimits;
  const accountSpend = account.spend_cap ? await periodSpend(c, key.account_id, now) : {};
  rows.push(
    ...scopeUsage(
      { scope: 'account', caps: sharedCaps(account), spend: accountSpend, heldUsd: shared.accountHeldUsd, rpm: minuteFigures(account.rpm, shared.accountRequests), tpm: minuteFigures(account.tpm, shared.accountTokens) },
      now,
    ),
  );
  const user = key.limits.end_user_limits;
  const named = shared.endUser;
  if (!user || !named) return rows;
  const userSpend = user.spend_cap ? await periodSpend(c, `${key._id}:u:${named.tag}`, now) : {};
  rows.push(...scopeUsage({ scope: 'end_user', caps: sharedCaps(user), spend: userSpend, heldUsd: named.heldUsd, rpm: minuteFigures(user.rpm, named.requests), tpm: minuteFigures(user.tpm, named.tokens) }, now));
  return rows;
}

/** Builds the `GET /v1/key` body. */
export async function keyInfo(c: KeyCollections, clock: Clock, key: KeyDoc, account: { readonly free_tier: boolean }, live: KeyLiveUsage) {
  // The authenticated key may come from a short cache; spend figures must be current.
  const now = clock();
  const [spend, fresh] = await Promise.all([periodSpend(c, key._id, now), c.keys.findOne({ _id: key._id }, { projection: { spend: 1 } })]);
  const lifetime = fresh?.spend ?? key.spend;
  const caps = key.limits.spend_cap ?? {};
  return {
    key_id: key._id,
    account_id: key.account_id,
    free_tier: account.free_tier,
    spend_usd: toUsdNumber(lifetime),
    name: key.name,
    label: key.label,
    disabled: key.disabled,
    expires_at: key.expires_at ? key.expires_at.toISOString() : null,
    limits: toLimitsView(key.limits),
    usage: { day_usd: toUsdNumber(spend.day), week_usd: toUsdNumber(spend.week), month_usd: toUsdNumber(spend.month) },
    remaining: {
      lifetime_usd: remaining(caps.lifetime, lifetime + live.heldUsd),
      day_usd: remaining(caps.day, spend.day + live.heldUsd),
      week_usd: remaining(caps.week, spend.week + live.heldUsd),
      month_usd: remaining(caps.month, spend.month + live.heldUsd),
      requests_this_minute: minuteRemaining(key.limits.rpm ?? live.minuteLimit, live.requestsThisMinute),
    },
    end_user: live.shared?.endUser?.id ?? null,
    limit_usage: await limitRows(c, now, key, { ...spend, lifetime }, live),
  };
}
