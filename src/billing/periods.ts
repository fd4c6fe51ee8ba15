/** A source of the current time, injectable so tests can cross UTC midnight. */
export type Clock = () => Date;

/** The real clock. */
export const systemClock: Clock = () => new Date();

const DAY_MS = 86_400_000;

/** The number of the UTC day holding `at` (days since the epoch): every period follows from it. */
export function utcDayNumber(at: Date): number {
  return Math.floor(at.getTime() / DAY_MS);
}

/** The period ids of one UTC day, its ISO week and its month. */
interface DayPeriods {
  readonly dayNumber: number;
  readonly day: string;
  readonly week: string;
  readonly month: string;
}

let lastDay: DayPeriods | undefined;

/**
 * The period ids of the UTC day holding `at`, remembered for the last day asked: every
 * request names several of them, nearly always of the same day as the one before.
 */
function periodsOf(at: Date): DayPeriods {
  const dayNumber = utcDayNumber(at);
  if (lastDay?.dayNumber === dayNumber) return lastDay;
  const iso = at.toISOString();
  lastDay = { dayNumber, day: `d:${iso.slice(0, 10)}`, week: `w:${weekStart(at).toISOString().slice(0, 10)}`, month: `m:${iso.slice(0, 7)}` };
  return lastDay;
}

/** The UTC calendar day of an instant, as a period id (`d:2026-11-21`). */
export function dayPeriod(at: Date): string {
  return periodsOf(at).day;
}

/** The UTC calendar month of an instant, as a period id (`m:2026-11`). */
export function monthPeriod(at: Date): string {
  return periodsOf(at).month;
}

/** Start of the next UTC day. */
export function nextDayStart(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
}

/** Start of the next UTC month. */
export function nextMonthStart(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}

/** Monday 00:00 UTC of the ISO week of an instant. */
export function weekStart(at: Date): Date {
  const sinceMonday = (at.getUTCDay() + 6) % 7;
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() - sinceMonday));
}

/** The ISO week (Monday 00:00 UTC to the next) of an instant, as a period id named by its Monday (`w:2026-11-23`). */
export function weekPeriod(at: Date): string {
  return periodsOf(at).week;
}

/** Start of the next ISO week (the next Monday, 00:00 UTC). */
export function nextWeekStart(at: Date): Date {
  const start = weekStart(at);
  return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate() + 7));
}

/**
 * The day period ids (`d:…`) from `start` to the UTC day of `at`, both included; computed
 * here rather than through `dayPeriod`, whose one remembered day is the current one.
 */
export function dayPeriodsFrom(start: Date, at: Date): string[] {
  const first = utcDayNumber(start);
  const last = utcDayNumber(at);
  const days: string[] = [];
  for (let d = first; d <= last; d++) days.push(`d:${new Date(d * DAY_MS).toISOString().slice(0, 10)}`);
  return days;
}
