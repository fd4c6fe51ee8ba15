import { spawn, type ChildProcess } from 'node:child_process';

/**
 * A child Node process running a TypeScript entry point through tsx, logs passed through. It
 * gets its own process group, so a Ctrl-C in the terminal reaches only the supervisor, which
 * then stops the children in order (an interrupt would make each exit at once, undrained).
 */
export function spawnEntry(entry: string, env: NodeJS.ProcessEnv, cwd: string): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', entry], { cwd, env, stdio: ['ignore', 'inherit', 'inherit'], detached: true });
}

/**
 * Runs an entry to completion; rejects on a non-zero exit or a signal. `spawned` sees the child
 * first, so it can be recorded (and stopped) while it runs.
 */
export async function runEntry(entry: string, env: NodeJS.ProcessEnv, cwd: string, spawned: (child: ChildProcess) => void = () => undefined): Promise<void> {
  const child = spawnEntry(entry, env, cwd);
  spawned(child);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
    child.once('exit', (c, s) => resolve([c, s]));
    child.once('error', () => resolve([null, null]));
  });
  if (code !== 0) throw new Error(`${entry} ${signal ? `ended on ${signal}` : `exited with ${String(code)}`}`);
}
