import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

/** A supervised long-running process. */
export interface SupervisedSpec {
  /** Name for the log, e.g. "web". */
  readonly name: string;
  /** Starts a fresh instance. */
  spawn(): ChildProcess;
}

/** Restart policy and stop timing. */
export interface SupervisorOptions {
  /** First restart delay; doubles on each crash in a row. Default 1 s. */
  readonly backoffMs?: number;
  /** Longest restart delay. Default 15 s. */
  readonly maxBackoffMs?: number;
  /** Crashes in a row after which the supervisor gives up. Default 5. */
  readonly maxRestarts?: number;
  /** A child that ran this long is healthy again: its crash count resets. Default 60 s. */
  readonly healthyAfterMs?: number;
  /** SIGTERM to SIGKILL when stopping a child. Default 30 s (what platforms allow). */
  readonly stopGraceMs?: number;
  readonly log?: (message: string) => void;
  /** Called once when a child crashed more than `maxRestarts` times in a row. */
  readonly onGiveUp?: (name: string) => void;
}

interface Slot {
  readonly spec: SupervisedSpec;
  child: ChildProcess | undefined;
  crashes: number;
}

const alive = (child: ChildProcess | undefined): child is ChildProcess =>
  child !== undefined && child.exitCode === null && child.signalCode === null;

/**
 * Keeps the dev stack's processes running: a crashed child is restarted with exponential
 * backoff (bounded; after too many crashes in a row the supervisor gives up), and `stop()`
 * ends the children one after another in the order they were given, so the web stops taking
 * requests before the worker and the stores behind them go away. Children still running
 * when the supervisor itself exits are killed, so none is ever left behind.
 */
export class Supervisor {
  private readonly slots: Slot[];
  private stopping = false;
  private readonly o: Required<Omit<SupervisorOptions, 'onGiveUp'>> & Pick<SupervisorOptions, 'onGiveUp'>;

  constructor(specs: readonly SupervisedSpec[], options: SupervisorOptions = {}) {
    this.slots = specs.map((spec) => ({ spec, child: undefined, crashes: 0 }));
    this.o = {
      backoffMs: options.backoffMs ?? 1_000,
      maxBackoffMs: options.maxBackoffMs ?? 15_000,
      maxRestarts: options.maxRestarts ?? 5,
      healthyAfterMs: options.healthyAfterMs ?? 60_000,
      stopGraceMs: options.stopGraceMs ?? 30_000,
      log: options.log ?? (() => undefined),
      onGiveUp: options.onGiveUp,
    };
    process.once('exit', () => this.killAll());
  }

  /** Starts every child. */
  start(): void {
    for (const slot of this.slots) this.launch(slot);
  }

  /** The running child of a name (tests and tools). */
  child(name: string): ChildProcess | undefined {
    return this.slots.find((s) => s.spec.name === name)?.child;
  }

  /** Stops the children in order: SIGTERM, wait for the exit, SIGKILL after the grace period. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const slot of this.slots) await this.stopOne(slot);
  }

  /** SIGKILLs whatever still runs (last resort; synchronous so it works in an exit handler). */
  killAll(): void {
    this.stopping = true;
    for (const slot of this.slots) if (alive(slot.child)) slot.child.kill('SIGKILL');
  }

  private launch(slot: Slot): void {
    const child = slot.spec.spawn();
    const startedAt = Date.now();
    slot.child = child;
    child.once('exit', (code, signal) => {
      if (this.stopping) return;
      if (Date.now() - startedAt >= this.o.healthyAfterMs) slot.crashes = 0;
      slot.crashes += 1;
      if (slot.crashes > this.o.maxRestarts) {
        this.o.log(`${slot.spec.name} crashed ${slot.crashes} times in a row; giving up`);
        this.o.onGiveUp?.(slot.spec.name);
        return;
      }
      const delay = Math.min(this.o.maxBackoffMs, this.o.backoffMs * 2 ** (slot.crashes - 1));
      this.o.log(`${slot.spec.name} exited (${signal ?? code ?? 'unknown'}); restarting in ${delay} ms`);
      void sleep(delay).then(() => {
        if (!this.stopping) this.launch(slot);
      });
    });
  }

  private async stopOne(slot: Slot): Promise<void> {
    const child = slot.child;
    if (!alive(child)) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), this.o.stopGraceMs);
    await exited;
    clearTimeout(timer);
    this.o.log(`${slot.spec.name} stopped`);
  }
}
