import { formatUsd, maxBig, type SpendWindow } from '../billing/index.js';

/** One limit a hold must fit: how much room it leaves now (nano-USD), and whether it fits. */
export interface QuoteCheck {
  room_usd: string;
  fits: boolean;
}

/** The rooms a request's hold must fit, by name (absent limits are left out). */
export type Rooms = Readonly<Record<string, bigint | undefined>>;

/** What checking a hold against every room found. */
export interface RoomChecks {
  checks: Record<string, QuoteCheck>;
  fits: boolean;
  /** The least room of all (nano-USD, at least 0), for what would fit. */
  tightest: bigint | undefined;
  /** The name of the limit with the least room (the first listed on a tie). */
  tightestLimit: string | undefined;
}

/** Checks a hold against each room; also the tightest room, for what would fit. */
export function checkRooms(hold: bigint, rooms: Rooms): RoomChecks {
  const checks: Record<string, QuoteCheck> = {};
  let fits = true;
  let tightest: bigint | undefined;
  let tightestLimit: string | undefined;
  for (const [name, room] of Object.entries(rooms)) {
    if (room === undefined) continue;
    const left = maxBig(room, 0n);
    const ok = hold <= left;
    checks[name] = { room_usd: formatUsd(left), fits: ok };
    fits &&= ok;
    if (tightest === undefined || left < tightest) [tightest, tightestLimit] = [left, name];
  }
  return { checks, fits, tightest, tightestLimit };
}

/**
 * The check name of a spend cap: `spend_cap_day` for the key's own, `account_spend_cap_day`
 * for its account's, `end_user_spend_cap_day` for the named end user's.
 */
export function capCheckName(scope: 'key' | 'account' | 'end_user', window: SpendWindow): string {
  return scope === 'key' ? `spend_cap_${window}` : `${scope}_spend_cap_${window}`;
}
