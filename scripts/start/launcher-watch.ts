import { readFileSync } from 'node:fs';
import { isRunning, refOf, type ProcessRef } from './process-identity.js';

/** Most ancestors looked at for the launching `npm` (npm → sh → tsx → this process). */
const MAX_ANCESTORS = 4;
/** How often the launchers are checked. */
const CHECK_MS = 1_000;

/** Parent pid and command line of `pid` from `/proc`, or undefined (gone, or no `/proc`). */
function procOf(pid: number): { ppid: number; command: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    return Number.isInteger(ppid) ? { ppid, command } : undefined;
  } catch {
    return undefined;
  }
}

/** True for the npm CLI as `ps` shows it (`npm start`, or node running npm-cli.js). */
function isNpm(command: string): boolean {
  return /^npm(\s|$)/.test(command) || /\bnpm-cli\.js\b/.test(command);
}

/**
 * The processes that launched `pid`, nearest first, up to and including the `npm` that ran it.
 * Without an `npm` among the nearest ancestors, only the parent: a start run from a shell or a
 * script is not tied to that shell's life.
 */
export function launcherChain(pid: number = process.pid): ProcessRef[] {
  const chain: ProcessRef[] = [];
  let current = procOf(pid);
  while (current && current.ppid > 1 && chain.length < MAX_ANCESTORS) {
    const parent = procOf(current.ppid);
    if (!parent) break;
    chain.push(refOf(current.ppid));
    if (isNpm(parent.command)) return chain;
    current = parent;
  }
  return chain.slice(0, 1);
}

/**
 * Calls `onGone` once when a launcher of this process has ended. A process manager that sends
 * SIGTERM to `npm` alone (not to its process group, as a terminal does) ends npm and the shell it
 * ran, but never reaches this process: without the watch, the stores, web and worker would run
 * on as orphans holding the data folder. The timer does not keep the process alive.
 */
export function watchLaunchers(chain: readonly ProcessRef[], onGone: () => void, everyMs: number = CHECK_MS): () => void {
  if (chain.length === 0) return () => undefined;
  const timer = setInterval(() => {
    if (chain.every(isRunning)) return;
    clearInterval(timer);
    onGone();
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
