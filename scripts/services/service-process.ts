import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** A spawned server process whose output goes to a log file. */
export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly logFile: string;
  /** Resolves when the process has exited (never rejects). */
  readonly exited: Promise<void>;
  /** Why the process ended, or undefined while it runs. */
  exitReason(): string | undefined;
  /** The end of the log file, for error messages. */
  logTail(lines?: number): string;
  /** Marks the coming exit as requested, so it is not reported as a crash. */
  markStopping(): void;
}

/** Options for {@link spawnService}. */
export interface SpawnServiceOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly logFile: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** Name used when reporting an exit nobody asked for. */
  readonly name: string;
  /** Receives that report (with the log's last lines), so a crash mid-run is not silent. */
  readonly log: (message: string) => void;
}

/**
 * Spawns a server with stdout and stderr appended to a file. A file rather than a pipe, so a
 * chatty server never blocks on a full pipe that nobody reads.
 */
export function spawnService(options: SpawnServiceOptions): ServiceProcess {
  const fd = fs.openSync(options.logFile, 'a');
  let reason: string | undefined;
  let stopping = false;
  const tail = (lines = 15): string => readTail(options.logFile, lines);
  const child = spawn(options.command, [...options.args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', fd, fd],
    // Its own process group: a Ctrl-C in the terminal reaches only the parent, which stops
    // its dependants (web, worker) before the stores they drain into.
    detached: true,
  });
  fs.closeSync(fd);
  // Never outlive the parent, however it exits (exit handlers run synchronously).
  const onParentExit = (): void => void child.kill('SIGTERM');
  process.once('exit', onParentExit);
  child.once('exit', () => process.off('exit', onParentExit));
  const exited = new Promise<void>((resolve) => {
    child.once('error', (error) => {
      reason = `could not run ${options.command}: ${error.message}`;
      resolve();
    });
    child.once('exit', (code, signal) => {
      reason = signal ? `exited on signal ${signal}` : `exited with code ${String(code)}`;
      if (!stopping) options.log(`${options.name} ${reason} unexpectedly; end of ${options.logFile}:\n${tail()}`);
      resolve();
    });
  });
  return {
    child,
    logFile: options.logFile,
    exited,
    exitReason: () => reason,
    logTail: tail,
    markStopping: () => {
      stopping = true;
    },
  };
}

/** Waits up to `timeoutMs` for the process to exit; true when it did. */
export async function waitForExit(service: ServiceProcess, timeoutMs: number): Promise<boolean> {
  if (service.exitReason() !== undefined) return true;
  // Cancel the timer once the race is decided, or it keeps the event loop (and vitest) alive.
  const cancel = new AbortController();
  const timer = sleep(timeoutMs, false, { signal: cancel.signal }).catch(() => false);
  try {
    return await Promise.race([service.exited.then(() => true), timer]);
  } finally {
    cancel.abort();
  }
}

/** Sends `signal`, then SIGKILL if the process is still there after `graceMs`. */
export async function terminate(service: ServiceProcess, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  service.markStopping();
  if (service.exitReason() !== undefined) return;
  service.child.kill(signal);
  if (await waitForExit(service, graceMs)) return;
  service.child.kill('SIGKILL');
  await waitForExit(service, 5_000);
}

function readTail(file: string, lines: number): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}
