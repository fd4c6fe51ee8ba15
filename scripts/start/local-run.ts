import type { ResolvedServices } from '../services/service-types.js';
import type { DataLock } from './data-lock.js';
import { launcherChain, watchLaunchers } from './launcher-watch.js';
import { endProcesses } from './process-identity.js';
import { killMarked } from './run-mark.js';
import type { Supervisor } from './supervisor.js';
import { TrackedProcesses } from './tracked-processes.js';

/** Where the run's own lines go (see safeWriter: writing can never fail). */
export interface RunOutput {
  log(message: string): void;
  fail(message: string): void;
}

/** Signals within this long of the first are the same keypress delivered twice (terminal and a parent passing it on). */
const SAME_KEYPRESS_MS = 1_000;

/**
 * The life of one `npm start`: what it owns (the data folder lock, the stores, the release step,
 * the supervised web and worker) and how it ends. A first signal stops everything in order; a
 * second one means "now" and kills every started process by pid; any failure stops what was
 * started before exiting; and an exit by any other way still kills what was recorded, and what
 * carries this run's mark without having been recorded (see run-mark.ts).
 */
export class LocalRun {
  /** Every started process, recorded in the lock file as it changes. */
  readonly tracked = new TrackedProcesses((processes) => this.lock?.update({ processes }));
  private lock: DataLock | undefined;
  private services: Promise<ResolvedServices> | undefined;
  private supervisor: Supervisor | undefined;
  private stopped: Promise<void> | undefined;
  private firstSignalAt = 0;

  /** `mark`: this run's mark, already in the environment every started process inherits (see markRun). */
  constructor(
    private readonly out: RunOutput,
    private readonly mark: string,
  ) {}

  /** True once stopping began: steps still to come are skipped. */
  get stopping(): boolean {
    return this.stopped !== undefined;
  }

  /** Installs the handlers; called before anything is started. */
  installHandlers(): void {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => this.onSignal());
    // Only ever a first stop: the launchers also end on a terminal's Ctrl-C, which is not a second one.
    watchLaunchers(launcherChain(), () => {
      if (this.stopping) return;
      this.out.log('the npm that started this ended without stopping it: stopping');
      void this.stop(0);
    });
    process.on('uncaughtException', (err) => this.fail(`supervisor error: ${err.message}`));
    process.on('unhandledRejection', (err) => this.fail(`supervisor error: ${err instanceof Error ? err.message : String(err)}`));
    process.on('exit', () => {
      this.tracked.killAll();
      // Wine's wineboot, server and services were started for mongod but are not children of
      // ours and were never recorded: after a second Ctrl-C they would outlive us, under init.
      killMarked(this.mark);
      this.lock?.release();
    });
  }

  /** Holds the data folder from now on; the lock is given up when this process ends. */
  own(lock: DataLock): void {
    this.lock = lock;
    if (this.stopping) lock.update({ state: 'stopping' });
  }

  /** The stores being started: a stop waits for them to be up (or to fail), then stops them. */
  startingServices(services: Promise<ResolvedServices>): void {
    this.services = services;
    services.catch(() => undefined);
  }

  /** The supervisor of web and worker, now started: the data folder's owner is running. */
  running(supervisor: Supervisor): void {
    this.supervisor = supervisor;
    this.lock?.update({ state: 'running' });
  }

  /** Reports a failure, then stops (a failure while already stopping is only reported). */
  fail(message: string): void {
    this.out.fail(message);
    void this.stop(1);
  }

  /** Stops everything in order, gives up the data folder and exits with `code` (0 on a signal). */
  stop(code: number): Promise<void> {
    this.stopped ??= this.stopInOrder().then(
      () => process.exit(code),
      () => process.exit(1),
    );
    return this.stopped;
  }

  private async stopInOrder(): Promise<void> {
    this.lock?.update({ state: 'stopping' });
    this.out.log('stopping web, then worker, then local services');
    const release = this.tracked.find('release');
    if (release) await endProcesses([release], 10_000);
    await this.supervisor?.stop();
    const services = await this.services?.catch(() => undefined);
    await services?.stop();
    this.lock?.release();
  }

  private onSignal(): void {
    if (!this.stopping) {
      this.firstSignalAt = Date.now();
      void this.stop(0);
      return;
    }
    if (Date.now() - this.firstSignalAt < SAME_KEYPRESS_MS) return;
    const pids = this.tracked.list().map((p) => `${p.name} ${p.pid}`);
    this.out.log(`stopping now: killing ${pids.length > 0 ? pids.join(', ') : 'nothing left'}`);
    this.supervisor?.killAll();
    this.tracked.killAll();
    process.exit(1);
  }
}
