/** Percentiles of a set of durations, in milliseconds. */
export interface LatencySummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentile of an ascending array. */
function rank(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

/** Rounds to three decimals (microsecond resolution for milliseconds). */
export function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** Summarises durations (ms). */
export function summarize(samples: readonly number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const total = sorted.reduce((sum, v) => sum + v, 0);
  return {
    count: sorted.length,
    p50: round3(rank(sorted, 50)),
    p90: round3(rank(sorted, 90)),
    p99: round3(rank(sorted, 99)),
    max: round3(sorted[sorted.length - 1] ?? Number.NaN),
    mean: round3(sorted.length > 0 ? total / sorted.length : Number.NaN),
  };
}

/** Runs `task` `count` times with at most `concurrency` in flight; returns each duration (ms). */
export async function timedPool(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<number[]> {
  const durations: number[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      const started = performance.now();
      await task(i);
      durations.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  return durations;
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
