import { dayPeriod, dayPeriodsFrom, monthPeriod, nextDayStart, nextMonthStart, nextWeekStart, weekPeriod, weekStart } from './periods.js';

/** A spend window: lifetime, or a UTC calendar period (ISO weeks start Monday 00:00 UTC). */
export type SpendWindow = 'lifetime' | 'day' | 'week' | 'month';

/** The windows that reset. */
export type CalendarWindow = Exclude<SpendWindow, 'lifetime'>;

/** Whose spend a cap limits: the key, its account (all its keys), or one end user of the key. */
export type LimitScope = 'key' | 'account' | 'user';

/** Windows from narrowest to widest; a narrower window's cap may not exceed a wider one's. */
export const WINDOW_ORDER: readonly SpendWindow[] = ['day', 'week', 'month', 'lifetime'];

/** A mirror the admission scripts track: the balance, or a spend window of a scope. */
export type MirrorName = 'balance' | SpendWindow | `account:${CalendarWindow}` | `user:${CalendarWindow}`;

/** One spend mirror: whose spend, over which window. */
export interface SpendMirror {
  readonly name: Exclude<MirrorName, 'balance'>;
  readonly scope: LimitScope;
  readonly window: SpendWindow;
}

/** The spend mirrors, in the order every script declares them (after the balance). */
export const SPEND_MIRRORS: readonly SpendMirror[] = [
  { name: 'lifetime', scope: 'key', window: 'lifetime' },
  { name: 'day', scope: 'key', window: 'day' },
  { name: 'week', scope: 'key', window: 'week' },
  { name: 'month', scope: 'key', window: 'month' },
  { name: 'account:day', scope: 'account', window: 'day' },
  { name: 'account:week', scope: 'account', window: 'week' },
  { name: 'account:month', scope: 'account', window: 'month' },
  { name: 'user:day', scope: 'user', window: 'day' },
  { name: 'user:week', scope: 'user', window: 'week' },
  { name: 'user:month', scope: 'user', window: 'month' },
];

/** A spend cap's mirror: the key's, its account's or its end user's, per window. */
export type CapName = Exclude<MirrorName, 'balance'>;

/** The spend mirror of a name. */
export function spendMirror(name: MirrorName): SpendMirror | undefined {
  return SPEND_MIRRORS.find((m) => m.name === name);
}

/** The period id of a calendar window at an instant (`d:2026-11-21`, `w:2026-11-16`, `m:2026-11`). */
export function periodOf(window: CalendarWindow, at: Date): string {
  switch (window) {
    case 'day':
      return dayPeriod(at);
    case 'week':
      return weekPeriod(at);
    case 'month':
      return monthPeriod(at);
  }
}

/**
 * The UTC days a calendar window has had up to `at` (day: that day; week: from its Monday;
 * month: from its first), as day period ids. MongoDB keeps spend per owner and day only, and
 * a week's or a month's spend is the sum of its days: a charge writes one spend document per
 * owner instead of three, which a batch over many accounts multiplied.
 */
export function daysSoFar(window: CalendarWindow, at: Date): string[] {
  switch (window) {
    case 'day':
      return [dayPeriod(at)];
    case 'week':
      return dayPeriodsFrom(weekStart(at), at);
    case 'month':
      return dayPeriodsFrom(new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1)), at);
  }
}

/** When the window holding `at` ends (undefined: lifetime never resets). */
export function resetOf(window: SpendWindow, at: Date): Date | undefined {
  switch (window) {
    case 'lifetime':
      return undefined;
    case 'day':
      return nextDayStart(at);
    case 'week':
      return nextWeekStart(at);
    case 'month':
      return nextMonthStart(at);
  }
}

/**
 * Whose spend bucket a scope writes (`<owner>:<period>`, kept in the accounts collection): the
 * key id, the account id, or the key id and end-user tag. Key and account ids have distinct
 * prefixes, and no account id holds a colon, so buckets collide neither with each other nor
 * with accounts.
 */
export function bucketOwner(scope: LimitScope, ids: { readonly accountId: string; readonly keyId: string; readonly endUser?: string | undefined }): string {
  switch (scope) {
    case 'key':
      return ids.keyId;
    case 'account':
      return ids.accountId;
    case 'user':
      return `${ids.keyId}:u:${ids.endUser ?? '-'}`;
  }
}
