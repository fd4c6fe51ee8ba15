import { maxBig, resetOf, type SpendWindow, toUsdNumber } from '../../billing/index.js';
import type { SharedLimits, SpendCaps } from './key-types.js';

/** Whose limit a row describes. */
export type UsageScope = 'key' | 'account' | 'end_user';

/** One limit that applies to the caller: its value, what is used of it, and when that resets. */
export interface LimitUsage {
  scope: UsageScope;
  /** The setting: `spend_cap_usd.week`, `rpm`, `tpm`. */
  limit: string;
  /** The limit (USD for spend caps, requests or tokens per minute otherwise). */
  value: number;
  /** Spent in the window (USD), or requests / tokens in the last minute. */
  used: number;
  /** Worst cases of requests in flight (USD; spend caps only): admission counts them too. */
  in_flight_usd?: number;
  remaining: number;
  /**
   * When the window resets (spend caps: the next calendar boundary; null for lifetime); for
   * the sliding minute of rpm and tpm, the time by which everything used now has left it.
   */
  resets_at: string | null;
}

/** Spend per window of one scope, nano-USD. */
export type WindowSpend = Partial<Record<SpendWindow, bigint>>;

/** What one scope has of each kind of limit. */
export interface ScopeFigures {
  readonly scope: UsageScope;
  readonly caps: SpendCaps;
  readonly spend: WindowSpend;
  readonly heldUsd: bigint;
  readonly rpm?: { readonly limit: number; readonly used: number } | undefined;
  readonly tpm?: { readonly limit: number; readonly used: number } | undefined;
}

/** The spend windows in the order rows and rooms list them. */
export const SPEND_WINDOWS: readonly SpendWindow[] = ['lifetime', 'day', 'week', 'month'];
const MINUTE_MS = 60_000;

/** The rows of one scope's limits, in a fixed order (spend caps by window, rpm, tpm). */
export function scopeUsage(f: ScopeFigures, now: Date): LimitUsage[] {
  const rows: LimitUsage[] = [];
  for (const window of SPEND_WINDOWS) {
    const cap = f.caps[window];
    const room = capRoom(f, window);
    if (cap === undefined || room === undefined) continue;
    const spent = f.spend[window] ?? 0n;
    const reset = resetOf(window, now);
    rows.push({
      scope: f.scope,
      limit: `spend_cap_usd.${window}`,
      value: toUsdNumber(cap),
      used: toUsdNumber(spent),
      in_flight_usd: toUsdNumber(f.heldUsd),
      remaining: toUsdNumber(maxBig(room, 0n)),
      resets_at: reset === undefined ? null : reset.toISOString(),
    });
  }
  const minute = new Date(now.getTime() + MINUTE_MS).toISOString();
  for (const [name, l] of [['rpm', f.rpm], ['tpm', f.tpm]] as const) {
    if (l === undefined) continue;
    rows.push({ scope: f.scope, limit: name, value: l.limit, used: l.used, remaining: Math.max(l.limit - l.used, 0), resets_at: l.used > 0 ? minute : now.toISOString() });
  }
  return rows;
}

/**
 * What a scope's cap on a window leaves now: the cap less the window's spend and the worst
 * cases in flight (admission counts those too). Below zero when spend overshot; absent when
 * the cap is not set.
 */
export function capRoom(f: ScopeFigures, window: SpendWindow): bigint | undefined {
  const cap = f.caps[window];
  return cap === undefined ? undefined : cap - (f.spend[window] ?? 0n) - f.heldUsd;
}

/** A minute-limit's figures when the limit is set. */
export function minuteFigures(limit: number | undefined, used: number): { limit: number; used: number } | undefined {
  return limit === undefined ? undefined : { limit, used };
}

/** The spend caps of shared limits as a scope's caps. */
export function sharedCaps(limits: SharedLimits | undefined): SpendCaps {
  return limits?.spend_cap ?? {};
}
