import type { Document, MongoClient } from 'mongodb';
import type { Logger } from 'pino';

/**
 * How long a transaction must have done nothing before it counts as left behind. A live
 * writer's transaction is busy for milliseconds between its statements, but an overloaded
 * process can leave one waiting for its event loop for a second or two; killing those turned
 * an overload into a collapse (every retry was killed again). One idle this long belongs to a
 * process that died mid-commit, or one stalled so long that a retry is cheaper.
 */
export const ORPHAN_IDLE_MS = 10_000;

/** Fewest milliseconds between two looks, so a slow MongoDB is not asked on every batch. */
const MIN_INTERVAL_MS = 2_000;

/**
 * Ends MongoDB transactions that processes which died mid-commit left open. A process killed
 * between its transaction's first write and its commit leaves that transaction open on the
 * server, holding its writes to the account and key documents, until MongoDB's
 * `transactionLifetimeLimitSeconds` (60 s by default) runs out. Until then every transaction
 * that charges the same account or key fails with a write conflict, and the driver's
 * `withTransaction` retries it for that whole minute: the charges spool, and with charges
 * spooled no process admits paid work. The reaper finds such transactions (idle sessions of
 * this user whose transaction has been inactive for `idleMs`) and kills their sessions, which
 * aborts them; the waiting commit's next retry then goes through. Killing a live but stalled
 * process's transaction only makes its own commit retry, and charges are idempotent.
 *
 * Only the caller's own sessions are listed and killed (`allUsers: false`), which needs no
 * privilege beyond the application's user. Any failure is logged and ignored: MongoDB's own
 * limit still ends the transaction.
 */
export class OrphanedTransactions {
  private running: Promise<number> | undefined;
  private lastRun = 0;

  constructor(
    private readonly client: MongoClient,
    private readonly log: Logger,
    private readonly idleMs = ORPHAN_IDLE_MS,
  ) {}

  /**
   * Looks for left-behind transactions and aborts them; resolves with how many (0 when
   * skipped). `own` names this process's sessions in use (their ids as hex): never killed.
   */
  reap(own: ReadonlySet<string> = new Set()): Promise<number> {
    if (this.running) return this.running;
    if (Date.now() - this.lastRun < MIN_INTERVAL_MS) return Promise.resolve(0);
    this.lastRun = Date.now();
    this.running = this.run(own).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async run(own: ReadonlySet<string>): Promise<number> {
    try {
      const admin = this.client.db('admin');
      const idle = await admin
        .aggregate<{ lsid: Document }>([
          { $currentOp: { allUsers: false, idleSessions: true } },
          { $match: { type: 'idleSession', active: false, 'transaction.timeInactiveMicros': { $gte: this.idleMs * 1_000 } } },
          { $project: { _id: 0, lsid: 1 } },
        ])
        .toArray();
      const sessions = idle.map((op) => op.lsid).filter((lsid) => lsid !== undefined && lsid !== null && !own.has(sessionHex(lsid)));
      if (sessions.length === 0) return 0;
      await admin.command({ killSessions: sessions });
      this.log.warn({ transactions: sessions.length }, 'aborted MongoDB transactions left open by a process that died mid-commit');
      return sessions.length;
    } catch (err) {
      this.log.debug({ err }, 'looking for transactions left open failed');
      return 0;
    }
  }
}

/** A session id (`lsid`) as hex: its `id` UUID's bytes, as the driver and `$currentOp` both give them. */
export function sessionHex(lsid: Document | undefined): string {
  const id = (lsid as { id?: { toString(encoding: 'hex'): string } } | undefined)?.id;
  return id ? id.toString('hex') : '';
}
