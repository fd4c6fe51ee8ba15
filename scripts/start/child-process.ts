import { spawn, type ChildProcess } from 'node:child_process';

/** A child Node process running a TypeScript entry point through tsx, logs passed through. */
export function spawnEntry(entry: string, env: NodeJS.ProcessEnv, cwd: string): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', entry], { cwd, env, stdio: ['ignore', 'inherit', 'inherit'] });
}

/** Runs an entry to completion; rejects on a non-zero exit. */
export async function runEntry(entry: string, env: NodeJS.ProcessEnv, cwd: string): Promise<void> {
  const child = spawnEntry(entry, env, cwd);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`${entry} exited with ${code}`);
}

/** Sends SIGTERM and waits for the exit (SIGKILL after the grace period). */
export async function stopChild(child: ChildProcess, graceMs = 30_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
