import { readFileSync } from 'node:fs';
import { isRunning, parentOf, refOf, type ProcessRef } from './process-identity.js';

/** Most ancestors looked at for the launching `npm` (npm → sh → this process, with room to spare). */
const MAX_ANCESTORS = 4;
/** How often the launchers are checked. */
const CHECK_MS = 1_000;

/** The command line of `pid` as `ps` shows it, or '' (gone, or no `/proc`). */
function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '';
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
  let parent = parentOf(pid);
  while (parent !== undefined && parent > 1 && chain.length < MAX_ANCESTORS) {
    chain.push(refOf(parent));
    if (isNpm(commandOf(parent))) return chain;
    parent = parentOf(parent);
  }
  return chain.slice(0, 1);
}

/**
 * Calls `onGone` once when a launcher of this process has ended. A process manager that sends
 * SIGTERM to `npm` alone (not to its process group, as a terminal does) ends npm and the shell it
 * ran, but never reaches this process: without the watch, the stores, web and worker would run
 * on as orphans holding the data folder. The timer does not keep the process alive.
 */
export function watchLaunchers(chain: readonly ProcessRef[], onGone: () => void, everyMs: number = CHECK_MS): void {
  if (chain.length === 0) return;
  const timer = setInterval(() => {
    if (chain.every(isRunning)) return;
    clearInterval(timer);
    onGone();
  }, everyMs);
  timer.unref();
}
