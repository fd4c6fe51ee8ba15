import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { captureOutput } from '../../helpers/capture-output.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** A real `worker` process (workers/main.ts) started for a test. */
export interface WorkerProcess {
  pid: number;
  output: () => string;
  /** kill -9: no shutdown, no lock release; its running jobs stall. */
  kill(): Promise<void>;
  /** SIGTERM and wait for the graceful exit (SIGKILL after 15 s). */
  stop(): Promise<void>;
}

/**
 * Starts `node --import tsx workers/main.ts` with the environment and waits for its
 * "worker started" log line (the process logs at info level for that).
 */
export async function spawnWorker(env: Record<string, string>, timeoutMs = 60_000): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'workers/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let started: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    started = resolve;
  });
  const output = captureOutput(child, 50_000, (tail) => {
    if (tail.includes('"msg":"worker started"')) started();
  });
  const exited = once(child, 'exit');
  const gone = (): boolean => child.exitCode !== null || child.signalCode !== null;
  const worker: WorkerProcess = {
    pid: child.pid ?? -1,
    output,
    async kill() {
      if (gone()) return;
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (gone()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`worker not started within ${timeoutMs} ms:\n${output()}`)), timeoutMs);
  });
  const early = exited.then(() => {
    throw new Error(`worker exited early:\n${output()}`);
  });
  try {
    await Promise.race([ready, timeout, early]);
  } catch (err) {
    await worker.kill();
    throw err;
  } finally {
    clearTimeout(timer);
    early.catch(() => undefined);
  }
  return worker;
}
