import type { ChildProcess } from 'node:child_process';
import type { OwnedProcess } from './data-lock.js';
import { refOf, signalRef } from './process-identity.js';

/**
 * Every process `npm start` started and that may still run, by pid: the stores, the release step,
 * web and worker. Each change is reported (the lock file records the list), so whoever comes
 * next can stop them even if this process dies; and {@link killAll} works from an exit handler.
 */
export class TrackedProcesses {
  private readonly entries = new Map<number, OwnedProcess>();

  constructor(private readonly onChange: (processes: readonly OwnedProcess[]) => void) {}

  /** Records a process by pid; `url` where it can be asked to stop cleanly (mongod). */
  add(name: string, pid: number, url?: string): void {
    this.entries.set(pid, { ...refOf(pid), name, ...(url === undefined ? {} : { url }) });
    this.onChange(this.list());
  }

  /** Records a child until it exits; returns it, so spawning and recording read as one step. */
  child(name: string, child: ChildProcess): ChildProcess {
    const pid = child.pid;
    if (pid === undefined) return child;
    this.add(name, pid);
    child.once('exit', () => {
      this.entries.delete(pid);
      this.onChange(this.list());
    });
    return child;
  }

  /** The processes recorded so far. */
  list(): OwnedProcess[] {
    return [...this.entries.values()];
  }

  /** The recorded process of a name, if any. */
  find(name: string): OwnedProcess | undefined {
    return this.list().find((p) => p.name === name);
  }

  /** SIGKILLs every recorded process that still runs (synchronous: the last resort, and the exit hook). */
  killAll(): void {
    for (const p of this.entries.values()) signalRef(p, 'SIGKILL');
  }
}
