import { type Clock, maxBig, type SpendWindow, toUsdNumber } from '../../billing/index.js';
import type { KeyDoc } from './key-types.js';
import { toLimitsView } from './key-view.js';
import { scopeUsage } from './limit-usage.js';
import { capRooms, keyLimitFigures, roomOf, type CapRoom, type KeyLiveUsage } from './limit-room.js';
import type { KeyCollections } from './key-collections.js';

export { periodSpend, type KeyLiveUsage, type SharedLiveUsage } from './limit-room.js';

function remaining(rooms: readonly CapRoom[], window: SpendWindow): number | null {
  const room = roomOf(rooms, 'key', window);
  return room === undefined ? null : toUsdNumber(maxBig(room, 0n));
}

function minuteRemaining(limit: number | undefined, used: number): number | null {
  return limit === undefined ? null : Math.max(limit - used, 0);
}

/** Builds the `GET /v1/key` body. */
export async function keyInfo(c: KeyCollections, clock: Clock, key: KeyDoc, account: { readonly free_tier: boolean }, live: KeyLiveUsage) {
  const now = clock();
  const figures = await keyLimitFigures(c, now, key, live);
  const spend = figures.keySpend;
  const rooms = capRooms(figures);
  return {
    key_id: key._id,
    account_id: key.account_id,
    free_tier: account.free_tier,
    spend_usd: toUsdNumber(spend.lifetime),
    name: key.name,
    label: key.label,
    disabled: key.disabled,
    expires_at: key.expires_at ? key.expires_at.toISOString() : null,
    limits: toLimitsView(key.limits),
    usage: { day_usd: toUsdNumber(spend.day), week_usd: toUsdNumber(spend.week), month_usd: toUsdNumber(spend.month) },
    remaining: {
      lifetime_usd: remaining(rooms, 'lifetime'),
      day_usd: remaining(rooms, 'day'),
      week_usd: remaining(rooms, 'week'),
      month_usd: remaining(rooms, 'month'),
      requests_this_minute: minuteRemaining(key.limits.rpm ?? live.minuteLimit, live.requestsThisMinute),
    },
    end_user: live.shared?.endUser?.id ?? null,
    limit_usage: figures.scopes.flatMap((f) => scopeUsage(f, now)),
  };
}
