import type { Logger } from 'pino';
import { within } from './bounded.js';
import { ShutdownReport } from './shutdown-report.js';

/** Platforms such as Heroku send SIGKILL 30 s after SIGTERM; the backstop fires before that. */
export const HARD_EXIT_MS = 28_000;

/** One step of an ordered shutdown. */
export interface ShutdownStep {
  /** Short name for the log, e.g. "drain http". */
  readonly name: string;
  /** Longest the step may take; the overall deadline may cut it shorter. */
  readonly timeoutMs: number;
  /** Does the work and notes in the report what it had to leave undone. */
  run(report: ShutdownReport): Promise<void>;
  /** Notes what the step still held when it was cut off (timed out or failed). */
  onCut?(report: ShutdownReport): void;
}

/** Timing of a shutdown. */
export interface ShutdownOptions {
  /** Budget for all steps together (config `shutdownGraceMs`). */
  readonly graceMs: number;
  /** Exit no matter what after this long; default min(graceMs + 2 s, 28 s). */
  readonly hardExitMs?: number;
  /** Exit hook, replaced in tests. */
  readonly exit?: (code: number) => void;
}

/**
 * Runs `steps` in order, each bounded by its own timeout and by `graceMs` overall, noting in
 * `report` every step that did not finish. Never throws and never waits past the budget.
 */
export async function runSteps(
  steps: readonly ShutdownStep[],
  graceMs: number,
  report: ShutdownReport,
  onStep: (name: string) => void = () => undefined,
  log?: Logger,
): Promise<ShutdownReport> {
  const deadline = Date.now() + graceMs;
  for (const step of steps) {
    onStep(step.name);
    const budget = Math.max(0, Math.min(step.timeoutMs, deadline - Date.now()));
    const outcome = await within(Promise.resolve().then(() => step.run(report)), budget);
    if (outcome === 'done') continue;
    report.unfinished(step.name, outcome);
    step.onCut?.(report);
    log?.warn({ step: step.name, budget_ms: budget }, `shutdown step ${outcome}`);
  }
  return report;
}

/**
 * Runs `steps` in order, each bounded by its own timeout and by the overall grace period, then
 * logs what was left undone and exits. A step that hangs (a store that is unreachable or
 * half-open) is abandoned and the next one runs; the process exit closes whatever it held.
 * An unref'd timer exits regardless just before platforms kill the process.
 */
export async function runShutdown(log: Logger, steps: readonly ShutdownStep[], options: ShutdownOptions, report = new ShutdownReport()): Promise<ShutdownReport> {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const started = Date.now();
  const hardExitMs = options.hardExitMs ?? Math.min(options.graceMs + 2_000, HARD_EXIT_MS);
  let current = 'start';
  const backstop = setTimeout(() => {
    report.unfinished(current, 'timed out');
    log.error({ left_undone: report.toJSON(), elapsed_ms: Date.now() - started }, `shutdown deadline passed; exiting: ${report.summary()}`);
    exit(1);
  }, hardExitMs);
  backstop.unref();
  await runSteps(steps, options.graceMs, report, (name) => {
    current = name;
  }, log);
  clearTimeout(backstop);
  const fields = { left_undone: report.toJSON(), elapsed_ms: Date.now() - started };
  if (report.clean) log.info(fields, `shutdown complete: ${report.summary()}`);
  else log.warn(fields, `shutdown complete: ${report.summary()}`);
  exit(report.clean ? 0 : 1);
  return report;
}

/**
 * Installs the signal handlers of an entry point. The first SIGTERM starts the ordered
 * shutdown of {@link runShutdown}; a second SIGTERM, or a SIGINT at any time, exits at once
 * (an operator who insists wins over any drain), after logging what was still pending.
 * Returns a function that removes the handlers.
 */
export function onShutdown(log: Logger, options: ShutdownOptions, steps: () => readonly ShutdownStep[]): () => void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const report = new ShutdownReport();
  let stopping = false;
  const now = (signal: NodeJS.Signals): void => {
    report.unfinished('shutdown', 'interrupted');
    log.warn({ signal, left_undone: report.toJSON() }, `exiting at once on ${signal}: ${report.summary()}`);
    exit(1);
  };
  const onInt = (): void => now('SIGINT');
  const onTerm = (): void => {
    if (stopping) return now('SIGTERM');
    stopping = true;
    log.info({ signal: 'SIGTERM', grace_ms: options.graceMs }, 'shutting down');
    void runShutdown(log, steps(), options, report).catch((err: unknown) => {
      log.error({ err }, 'shutdown failed');
      exit(1);
    });
  };
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return () => {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  };
}
