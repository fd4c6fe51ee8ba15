import type { BenchPlan } from './bench-options.js';
import type { CpuRecord } from './bench-report.js';
import type { BenchStack } from './bench-stack.js';
import { chatHeaders } from './chat-requests.js';
import { withStealRepeats, type StealRecord } from './cpu-steal.js';
import { measureCpu } from './proc-stats.js';
import type { Measurement } from './report-rows.js';

/** What every scenario gets. */
export interface ScenarioContext {
  readonly stack: BenchStack;
  readonly plan: BenchPlan;
  readonly log: (message: string) => void;
  /** CPU records are appended here. */
  readonly cpu: CpuRecord[];
}

/** What a scenario hands back: its measurements (raw figures per row) and the details behind them. */
export interface ScenarioOutput {
  rows: Measurement[];
  details: Record<string, unknown>;
}

/** Who answers a chat call: the bare proxy, Farebox, or the Portkey peer. */
export type EndpointName = 'floor' | 'farebox' | 'portkey';

/** Where and how to send a chat call to one of them. */
export interface Endpoint {
  readonly name: EndpointName;
  readonly url: string;
  readonly headers: Record<string, string>;
}

/** The bare proxy, Farebox and (when it started) Portkey, in the order they are measured. */
export function chatEndpoints(ctx: ScenarioContext): Endpoint[] {
  const headers = chatHeaders(ctx.stack.account.key);
  const { portkey } = ctx.stack;
  return [
    { name: 'floor', url: ctx.stack.floorUrl, headers },
    { name: 'farebox', url: ctx.stack.webUrl, headers },
    ...('failed' in portkey ? [] : [{ name: 'portkey' as const, url: portkey.url, headers: portkey.headers }]),
  ];
}

/** Why Portkey has no figure in a row it would otherwise be measured in. */
export function portkeyAbsence(ctx: ScenarioContext): string | undefined {
  return 'failed' in ctx.stack.portkey ? `n/a — peer did not start: ${ctx.stack.portkey.failed}` : undefined;
}

/** Runs `fn` while sampling every tracked process's CPU use, recorded under `label`. */
export async function withCpu<T>(ctx: ScenarioContext, label: string, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const end = measureCpu(ctx.stack.tracked);
  const value = await fn();
  ctx.cpu.push({ during: label, seconds: Math.round((performance.now() - started) / 100) / 10, ...end() });
  return value;
}

/** Measures the window of one or more rows, again when CPU steal was high (see cpu-steal). */
export function measured<T>(ctx: ScenarioContext, label: string, fn: () => Promise<T>): Promise<{ value: T; steal: StealRecord }> {
  return withStealRepeats(label, fn, ctx.log);
}
