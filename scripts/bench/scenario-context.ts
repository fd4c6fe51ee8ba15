import type { BenchPlan } from './bench-options.js';
import type { CpuRecord } from './bench-report.js';
import type { BenchStack } from './bench-stack.js';
import { chatHeaders } from './chat-requests.js';
import { withStealRepeats, type StealRecord } from './cpu-steal.js';
import { sleep } from './latency-stats.js';
import { cpuSeconds, measureCpu } from './proc-stats.js';
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

/** Busiest the relays may be together (% of a core) and still count as idle. */
const IDLE_PERCENT = 10;
/** The processes that relay chat calls, sharing the gateway core (`web-local`: the tail rows' second web). */
const RELAYS = new Set(['floor-proxy', 'web', 'web-local', 'portkey']);

/**
 * Waits (up to `maxMs`) until the relays (floor, web, Portkey) are idle: one that fell
 * behind keeps working through its backlog after the load stops, and would otherwise take CPU
 * from whichever of them is measured next on the same core.
 */
export async function settle(ctx: ScenarioContext, maxMs = 20_000): Promise<void> {
  const procs = ctx.stack.tracked.filter((t) => RELAYS.has(t.name));
  const deadline = performance.now() + maxMs;
  const used = (): number => procs.reduce((sum, p) => sum + (cpuSeconds(p.pid) ?? 0), 0);
  while (performance.now() < deadline) {
    const before = used();
    await sleep(500);
    if (((used() - before) / 0.5) * 100 < IDLE_PERCENT) return;
  }
  ctx.log(`the relays were still busy ${Math.round(maxMs / 1000)} s after the load stopped`);
}
