import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { captureOutput } from '../../helpers/capture-output.js';
import { waitFor } from '../../helpers/wait-for.js';

/** One Procfile process started the way a Procfile runner starts it: `bash -c` in its own group, as Heroku does. */
export interface ProcfileProcess {
  readonly output: () => string;
  /** Resolves with the exit code (or signal name) when the process ends. */
  readonly exited: Promise<number | string>;
  /**
   * SIGTERM to the whole group, as a platform stops a dyno; resolves 'stopped' once no live
   * process is left in the group (npm may exit before the node process it started has drained),
   * or 'timeout' after `graceMs`, when the group gets SIGKILL.
   */
  terminate(graceMs: number): Promise<'stopped' | 'timeout'>;
  kill(): void;
}

/** True while the process group has a member that is not a zombie waiting to be reaped. */
function groupAlive(pgid: number): Promise<boolean> {
  return new Promise((resolve) => {
    execFile('ps', ['-o', 'stat=', '-g', String(pgid)], (_err, stdout) => {
      resolve(stdout.split('\n').some((stat) => stat.trim() !== '' && !stat.trim().startsWith('Z')));
    });
  });
}

/** The Procfile of `dir` as name → command. */
export async function readProcfile(dir: string): Promise<Record<string, string>> {
  const text = await readFile(join(dir, 'Procfile'), 'utf8');
  const entries = text
    .split('\n')
    .map((line) => /^([A-Za-z0-9_-]+):\s*(.+)$/.exec(line.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => [m[1] ?? '', m[2] ?? ''] as const);
  return Object.fromEntries(entries);
}

/** Starts `command` with exactly `env` (plus PATH and HOME) in `dir`. */
export function startProcfileProcess(dir: string, command: string, env: Record<string, string>): ProcfileProcess {
  const child: ChildProcess = spawn('bash', ['-c', command], {
    cwd: dir,
    detached: true,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = captureOutput(child, 20_000);
  const exited = once(child, 'exit').then(([code, signal]) => (code ?? signal) as number | string);
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  return {
    output,
    exited,
    async terminate(graceMs) {
      signalGroup('SIGTERM');
      const pid = child.pid;
      const stopped = await waitFor('the process group to exit', async () => pid === undefined || !(await groupAlive(pid)), { timeoutMs: graceMs, intervalMs: 200 }).then(
        () => true,
        () => false,
      );
      if (stopped) return 'stopped';
      signalGroup('SIGKILL');
      return 'timeout';
    },
    kill: () => signalGroup('SIGKILL'),
  };
}
