import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** A process as recorded: its pid, and its start time so a reused pid is not mistaken for it. */
export interface ProcessRef {
  readonly pid: number;
  /** Start time in clock ticks since boot (Linux `/proc/<pid>/stat`); absent elsewhere. */
  readonly startTime?: string;
}

/** State letter, parent pid and start time of `pid` from `/proc/<pid>/stat`, or undefined (gone, or no `/proc`). */
function statOf(pid: number): { state: string; ppid: number; startTime: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces, so count after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', ppid: Number(fields[1]), startTime: fields[19] ?? '' };
  } catch {
    return undefined;
  }
}

/** The start time of `pid` (clock ticks since boot), or undefined (no such process, or no `/proc`). */
export function startTimeOf(pid: number): string | undefined {
  return statOf(pid)?.startTime;
}

/** The parent pid of `pid`, or undefined (no such process, or no `/proc`). */
export function parentOf(pid: number): number | undefined {
  return statOf(pid)?.ppid;
}

/** A reference to a running process, start time included where the system tells it. */
export function refOf(pid: number): ProcessRef {
  const startTime = startTimeOf(pid);
  return startTime === undefined ? { pid } : { pid, startTime };
}

/** True while the recorded process runs: the pid answers and, where known, started at the same time. */
export function isRunning(ref: ProcessRef): boolean {
  try {
    process.kill(ref.pid, 0);
  } catch {
    // EPERM: it exists but belongs to someone else, so it is not one of ours any more.
    return false;
  }
  const stat = statOf(ref.pid);
  // A zombie has exited already; a different start time means the pid now names another process.
  if (stat?.state === 'Z') return false;
  return ref.startTime === undefined || stat === undefined || stat.startTime === ref.startTime;
}

/** Sends `signal` to the recorded process if it is still that process; never throws. */
export function signalRef(ref: ProcessRef, signal: NodeJS.Signals): void {
  if (!isRunning(ref)) return;
  try {
    process.kill(ref.pid, signal);
  } catch {
    // Gone in the meantime.
  }
}

/** Waits up to `timeoutMs` for every process to be gone; true when they are. */
export async function waitGone(refs: readonly ProcessRef[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (refs.some(isRunning)) {
    if (Date.now() >= deadline) return false;
    await sleep(100);
  }
  return true;
}

/**
 * Sends `first` (unless 'none': a gentler stop was already asked for), then SIGKILL to whatever
 * is left after `graceMs`; resolves once all are gone or a last bounded wait ran out.
 */
export async function endProcesses(refs: readonly ProcessRef[], graceMs: number, first: NodeJS.Signals | 'none' = 'SIGTERM'): Promise<void> {
  if (first !== 'none') for (const ref of refs) signalRef(ref, first);
  if (await waitGone(refs, graceMs)) return;
  for (const ref of refs) signalRef(ref, 'SIGKILL');
  await waitGone(refs, 5_000);
}
