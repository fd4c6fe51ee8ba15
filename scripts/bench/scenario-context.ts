import type { BenchPlan } from './bench-options.js';
import type { CpuRecord, ResultRow } from './bench-report.js';
import type { BenchStack } from './bench-stack.js';
import { measureCpu } from './proc-stats.js';

/** What every scenario gets. */
export interface ScenarioContext {
  readonly stack: BenchStack;
  readonly plan: BenchPlan;
  readonly log: (message: string) => void;
  /** CPU records are appended here. */
  readonly cpu: CpuRecord[];
}

/** What a scenario hands back: table rows and the absolute figures behind them. */
export interface ScenarioOutput {
  rows: ResultRow[];
  details: Record<string, unknown>;
}

/** Runs `fn` while sampling every tracked process's CPU use, recorded under `label`. */
export async function withCpu<T>(ctx: ScenarioContext, label: string, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const end = measureCpu(ctx.stack.tracked);
  const value = await fn();
  ctx.cpu.push({ during: label, seconds: Math.round((performance.now() - started) / 100) / 10, ...end() });
  return value;
}
