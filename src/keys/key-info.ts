import { toUsdNumber, maxBig } from '../billing/money.js';
import { dayPeriod, monthPeriod, weekPeriod, type Clock } from '../billing/periods.js';
import type { KeyDoc } from './key-types.js';
import { toLimitsView } from './key-view.js';
import type { KeyCollections } from './key-collections.js';

/** Live figures about a key that admission knows better than MongoDB (in-flight holds, RPM). */
export interface KeyLiveUsage {
  heldUsd: bigint;
  requestsThisMinute: number;
  /** The per-minute limit that applies when the key has none of its own (free tier). */
  minuteLimit?: number;
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

/** Builds the `GET /v1/key` body. */
export async function keyInfo(c: KeyCollections, clock: Clock, key: KeyDoc, account: { readonly free_tier: boolean }, live: KeyLiveUsage) {
  // The authenticated key may come from a short cache; spend figures must be current.
  const [spend, fresh] = await Promise.all([periodSpend(c, key._id, clock()), c.keys.findOne({ _id: key._id }, { projection: { spend: 1 } })]);
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
  };
}
