import { readFileSync } from 'node:fs';

/** Above this share of CPU time stolen by the hypervisor, a row's figures are measured again. */
export const STEAL_LIMIT_PERCENT = 20;
/** Most extra measurements of one row. */
export const MAX_STEAL_REPEATS = 2;

/** CPU steal over the windows a row was measured in. */
export interface StealRecord {
  /** Steal of the attempt whose figures the row reports, % of all CPU time. */
  percent: number;
  /** Steal of each attempt in order (more than one when the row was repeated). */
  attempts: number[];
  /** Index in `attempts` of the attempt reported. */
  kept: number;
}

/** Whole-machine CPU ticks so far (the `cpu` line of /proc/stat): all states, and steal. */
function cpuTicks(): { total: number; steal: number } | undefined {
  try {
    const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1, 9).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is already inside user/nice).
    return { total: fields.reduce((sum, v) => sum + v, 0), steal: fields[7] ?? 0 };
  } catch {
    return undefined;
  }
}

/** Starts a steal window; the returned function ends it: steal as % of all CPU time, or NaN off Linux. */
export function stealWindow(): () => number {
  const before = cpuTicks();
  return () => {
    const after = cpuTicks();
    if (!before || !after || after.total <= before.total) return Number.NaN;
    return Math.round(((after.steal - before.steal) / (after.total - before.total)) * 1000) / 10;
  };
}

/**
 * True when the last attempt went beyond `limit` (CPU steal, % by default; any figure where
 * less is better) and another attempt is allowed.
 */
export function shouldRepeat(attempts: readonly number[], limit = STEAL_LIMIT_PERCENT): boolean {
  const last = attempts[attempts.length - 1];
  return last !== undefined && last > limit && attempts.length <= MAX_STEAL_REPEATS;
}

/** The attempt to report: the one with the least steal, or other figure (the first of equals; unknown last). */
export function keptAttempt(attempts: readonly number[]): number {
  let best = 0;
  attempts.forEach((steal, i) => {
    const current = attempts[best] ?? Number.NaN;
    if (Number.isFinite(steal) && (!Number.isFinite(current) || steal < current)) best = i;
  });
  return best;
}

/**
 * Runs `measure` (the window one or more rows are measured in) and repeats it, up to
 * {@link MAX_STEAL_REPEATS} more times, while the hypervisor stole more than
 * {@link STEAL_LIMIT_PERCENT} % of the CPU time during it; the attempt with the least steal is
 * reported, and every attempt's steal is kept.
 */
export async function withStealRepeats<T>(label: string, measure: () => Promise<T>, log: (message: string) => void): Promise<{ value: T; steal: StealRecord }> {
  const values: T[] = [];
  const attempts: number[] = [];
  do {
    const end = stealWindow();
    values.push(await measure());
    attempts.push(end());
    if (shouldRepeat(attempts)) log(`${label}: CPU steal ${attempts[attempts.length - 1]}% (> ${STEAL_LIMIT_PERCENT}%), measuring again`);
  } while (shouldRepeat(attempts));
  const kept = keptAttempt(attempts);
  return { value: values[kept] as T, steal: { percent: attempts[kept] ?? Number.NaN, attempts, kept } };
}
