import { formatUsd, maxBig } from '../billing/money.js';

/** One limit a hold must fit: how much room it leaves now (nano-USD), and whether it fits. */
export interface QuoteCheck {
  room_usd: string;
  fits: boolean;
}

/** The rooms a request's hold must fit, by name (absent limits are left out). */
export type Rooms = Readonly<Record<string, bigint | undefined>>;

/** Checks a hold against each room; also the tightest room, for what would fit. */
export function checkRooms(hold: bigint, rooms: Rooms): { checks: Record<string, QuoteCheck>; fits: boolean; tightest: bigint | undefined } {
  const checks: Record<string, QuoteCheck> = {};
  let fits = true;
  let tightest: bigint | undefined;
  for (const [name, room] of Object.entries(rooms)) {
    if (room === undefined) continue;
    const left = maxBig(room, 0n);
    const ok = hold <= left;
    checks[name] = { room_usd: formatUsd(left), fits: ok };
    fits &&= ok;
    tightest = tightest === undefined || left < tightest ? left : tightest;
  }
  return { checks, fits, tightest };
}
