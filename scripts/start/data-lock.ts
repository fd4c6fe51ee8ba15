import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isRunning, refOf, type ProcessRef } from './process-identity.js';

/** Where the owning `npm start` is in its life. */
export type OwnerState = 'starting' | 'running' | 'stopping';

/** A process the owner started (a store, the release step, web, worker), so a successor can stop it. */
export interface OwnedProcess extends ProcessRef {
  readonly name: string;
  /** mongod's URL: a successor asks it to shut down cleanly before killing it. */
  readonly url?: string;
}

/** What the lock file says: who owns the data folder, on which gateway port, and what it started. */
export interface OwnerRecord extends ProcessRef {
  readonly port: number;
  readonly state: OwnerState;
  readonly processes: readonly OwnedProcess[];
}

/** The lock file's name inside the data folder. */
export const LOCK_FILE = 'npm-start.lock';

const readRecord = (file: string): OwnerRecord | 'gone' | 'unreadable' => {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return 'gone';
  }
  try {
    const record = JSON.parse(text) as Partial<OwnerRecord>;
    if (typeof record.pid !== 'number' || !Array.isArray(record.processes)) return 'unreadable';
    return { port: 0, state: 'running', ...record } as OwnerRecord;
  } catch {
    return 'unreadable';
  }
};

/** Writes `record` whole under a private name, then hard-links it into place: fails if the file exists. */
function createExclusive(file: string, record: OwnerRecord): boolean {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(record)}\n`);
  try {
    linkSync(tmp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(tmp);
  }
}

/** The data folder, owned by this process until {@link DataLock.release}. */
export class DataLock {
  constructor(
    private readonly file: string,
    private record: OwnerRecord,
  ) {}

  /** Records a new state and the processes started so far; never throws (the lock stays held). */
  update(change: Partial<Pick<OwnerRecord, 'state' | 'processes'>>): void {
    this.record = { ...this.record, ...change };
    const tmp = `${this.file}.${process.pid}.tmp`;
    try {
      writeFileSync(tmp, `${JSON.stringify(this.record)}\n`);
      renameSync(tmp, this.file);
    } catch {
      // The old record stays; a successor then finds fewer processes to clean up, nothing worse.
    }
  }

  /** Removes the lock file if it still names this process (synchronous: safe in an exit handler). */
  release(): void {
    const current = readRecord(this.file);
    if (typeof current === 'object' && current.pid === this.record.pid && current.startTime === this.record.startTime) {
      try {
        unlinkSync(this.file);
      } catch {
        // Already gone.
      }
    }
  }
}

/** Removes the lock file of a dead owner; puts it back if it turns out to name a live one. */
function removeStale(file: string): void {
  const aside = `${file}.stale.${process.pid}`;
  try {
    renameSync(file, aside);
  } catch {
    return; // another start removed it first
  }
  const moved = readRecord(aside);
  // Another start may have replaced the stale file between our read and the move.
  if (typeof moved === 'object' && isRunning(moved)) {
    try {
      linkSync(aside, file);
    } catch {
      // Someone holds the file again; the one we moved loses nothing by going.
    }
  }
  unlinkSync(aside);
}

/** Options for {@link acquireDataLock}. */
export interface AcquireOptions {
  readonly dataDir: string;
  /** The gateway port this start will serve, shown to a second start. */
  readonly port: number;
  readonly log: (message: string) => void;
  /** Stops what a dead owner left running (its recorded processes). */
  readonly cleanUp: (dead: OwnerRecord) => Promise<void>;
  /** How long to wait for an owner that is stopping. Default 90 s. */
  readonly stoppingWaitMs?: number;
}

/** Owned, or held by a live owner (`stopping`: it was still stopping when the wait ran out). */
export type LockOutcome = { readonly kind: 'owned'; readonly lock: DataLock } | { readonly kind: 'busy'; readonly holder: OwnerRecord; readonly stopping: boolean };

/**
 * Takes the data folder for this process. A live owner that is running keeps it (checked twice,
 * a second apart, in case a stop signal is on its way); one that is stopping is waited for,
 * bounded; a dead one is cleaned up after (its processes stopped by pid) and replaced.
 */
export async function acquireDataLock(options: AcquireOptions): Promise<LockOutcome> {
  const file = path.join(options.dataDir, LOCK_FILE);
  const mine: OwnerRecord = { ...refOf(process.pid), port: options.port, state: 'starting', processes: [] };
  const stopWaitEnds = Date.now() + (options.stoppingWaitMs ?? 90_000);
  let seenRunning = 0;
  let announcedWait = false;
  for (let attempt = 0; attempt < 1_000; attempt += 1) {
    if (createExclusive(file, mine)) return { kind: 'owned', lock: new DataLock(file, mine) };
    const holder = readRecord(file);
    if (holder === 'gone') continue;
    if (holder === 'unreadable' || !isRunning(holder)) {
      if (holder !== 'unreadable') {
        options.log(`the previous npm start (pid ${holder.pid}) is gone; stopping what it left running`);
        await options.cleanUp(holder);
      }
      removeStale(file);
      continue;
    }
    if (holder.state === 'stopping') {
      if (Date.now() >= stopWaitEnds) return { kind: 'busy', holder, stopping: true };
      if (!announcedWait) options.log(`waiting for the previous npm start (pid ${holder.pid}) to finish stopping`);
      announcedWait = true;
      await sleep(250);
      continue;
    }
    if ((seenRunning += 1) > 1) return { kind: 'busy', holder, stopping: false };
    await sleep(1_000);
  }
  throw new Error(`could not take ${file}`);
}
