import lockfile from 'proper-lockfile';

/** This process's hold on one spool file. */
export interface SegmentLock {
  /** Gives the file up (after it was deleted, or at shutdown for a later process to adopt). */
  release(): Promise<void>;
}

/**
 * Claims a spool file with an exclusive lock (proper-lockfile: an atomic `mkdir` of
 * `<file>.lock` whose mtime the owner refreshes every quarter lease). Nothing in it depends on
 * process ids, so two containers that are both PID 1 on one shared volume never mistake each
 * other for dead: a lock is only taken over once its owner stopped refreshing it for `leaseMs`.
 * Resolves undefined while a live owner holds it. `onLost` runs if this process's lock is
 * taken over or removed anyway (it was frozen longer than the lease): another process may
 * then adopt the file.
 */
export async function lockSegment(file: string, leaseMs: number, onLost: (err: Error) => void): Promise<SegmentLock | undefined> {
  try {
    const release = await lockfile.lock(file, {
      stale: leaseMs,
      update: Math.max(1_000, Math.floor(leaseMs / 4)),
      realpath: false,
      retries: 0,
      onCompromised: onLost,
    });
    return {
      release: () => release().catch(() => undefined),
    };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') return undefined;
    throw err;
  }
}
