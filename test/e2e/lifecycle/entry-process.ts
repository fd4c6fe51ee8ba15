import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../helpers/spawn-web.js';
import { captureOutput } from '../../helpers/capture-output.js';
import { waitFor } from '../../helpers/wait-for.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** How a SIGTERM ended. */
export interface TermOutcome {
  /** Milliseconds from SIGTERM to the exit, or undefined when it had to be SIGKILLed. */
  exitedAfterMs: number | undefined;
  code: number | null;
  /** The structured exit line ("shutdown complete: …" or "shutdown deadline passed …"). */
  exitLog: { msg: string; left_undone: Record<string, number> } | undefined;
}

/** A web or worker process under test. */
export interface EntryProcess {
  url: string;
  output(): string;
  /** SIGTERM, then wait up to `deadlineMs` for the exit; SIGKILL if it has not exited by then. */
  terminate(deadlineMs: number): Promise<TermOutcome>;
  /** SIGKILL if still running (cleanup). */
  kill(): Promise<void>;
}

function exitLine(output: string): TermOutcome['exitLog'] {
  for (const line of output.split('\n').reverse()) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line) as { msg?: unknown; left_undone?: unknown };
      if (typeof entry.msg === 'string' && /^shutdown (complete|deadline passed)/.test(entry.msg)) {
        return { msg: entry.msg, left_undone: (entry.left_undone ?? {}) as Record<string, number> };
      }
    } catch {
      // not a log line
    }
  }
  return undefined;
}

/**
 * Starts `node --import tsx <entry>` (src/http/server.ts or workers/main.ts) with `env` and a free
 * PORT, and resolves once `ready` says so. Output is kept for the exit log.
 */
export async function startEntry(entry: string, env: Record<string, string>, ready: (p: EntryProcess) => Promise<boolean>, timeoutMs = 90_000): Promise<EntryProcess> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = captureOutput(child, 200_000);
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const gone = (): boolean => child.exitCode !== null || child.signalCode !== null;
  const proc: EntryProcess = {
    url: `http://127.0.0.1:${port}`,
    output,
    async terminate(deadlineMs) {
      const sent = Date.now();
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), deadlineMs)));
      const first = await Promise.race([exited, late]);
      clearTimeout(timer);
      if (first === 'late') {
        await proc.kill();
        return { exitedAfterMs: undefined, code: null, exitLog: exitLine(output()) };
      }
      return { exitedAfterMs: Date.now() - sent, code: first[0], exitLog: exitLine(output()) };
    },
    async kill() {
      if (gone()) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
  const readiness = waitFor(`${entry} to be ready`, async () => {
    if (await ready(proc).catch(() => false)) return true;
    if (gone()) throw new Error(`${entry} exited early:\n${output()}`);
    return false;
  }, { timeoutMs, intervalMs: 100, detail: output });
  // A process that never became ready is not left running.
  await readiness.catch(async (err: unknown) => {
    await proc.kill();
    throw err;
  });
  return proc;
}

/** Ready when `/readyz` answers 200. */
export const webReady = async (p: EntryProcess): Promise<boolean> => (await fetch(`${p.url}/readyz`)).status === 200;

/** Ready once the worker logged that it started. */
export const workerReady = async (p: EntryProcess): Promise<boolean> => p.output().includes('"msg":"worker started"');
