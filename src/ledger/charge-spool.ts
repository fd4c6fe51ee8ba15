import type { CostLineWire } from '../billing/index.js';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import type { ChargeRequest } from './apply-charges.js';
import { lockSegment, type SegmentLock } from './spool-lock.js';

/** A file of spooled charges and what it holds. */
export interface SpoolSegment {
  readonly file: string;
  readonly charges: ChargeRequest[];
}

/** A sealed segment, with when its first charge was spooled (0: adopted, unknown). */
interface SealedSegment extends SpoolSegment {
  readonly since: number;
}

/** The segment appends go to: its charges, when each was spooled, and how many are committed. */
interface OpenSegment {
  readonly file: string;
  readonly handle: fs.FileHandle;
  readonly charges: ChargeRequest[];
  readonly times: number[];
  drained: number;
  readonly opened: number;
}

/** An append waiting for the next group write. */
interface WaitingAppend {
  readonly charge: ChargeRequest;
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}

interface Line {
  requestId: string;
  accountId: string;
  keyId: string;
  endUserTag?: string;
  model: string;
  cost: string;
  units?: Record<string, number>;
  overLimit?: string;
  lines?: CostLineWire[];
  priceVersion?: string;
  at: string;
}

/** Spool files: `spool-<instance>-<segment>.jsonl` (older versions put a pid first). */
const FILE = /^spool-[0-9a-z]+-[0-9a-f]+\.jsonl$/;
const LOCK_DIR = /^(spool-[0-9a-z]+-[0-9a-f]+\.jsonl)\.lock$/;

/** How long a spool file's owner may go without refreshing its lock before others adopt it. */
export const SPOOL_LEASE_MS = 10_000;

function toLine(r: ChargeRequest): string {
  const line: Line = { requestId: r.requestId, accountId: r.accountId, keyId: r.keyId, model: r.model, cost: r.cost.toString(), at: r.at.toISOString() };
  if (r.units) line.units = r.units;
  if (r.endUserTag !== undefined) line.endUserTag = r.endUserTag;
  if (r.overLimit !== undefined && r.overLimit > 0n) line.overLimit = r.overLimit.toString();
  if (r.lines !== undefined) line.lines = r.lines;
  if (r.priceVersion !== undefined) line.priceVersion = r.priceVersion;
  return `${JSON.stringify(line)}\n`;
}

function fromLine(text: string): ChargeRequest {
  const l = JSON.parse(text) as Line;
  const request: ChargeRequest = { requestId: l.requestId, accountId: l.accountId, keyId: l.keyId, model: l.model, cost: BigInt(l.cost), units: l.units, at: new Date(l.at) };
  if (l.overLimit !== undefined) request.overLimit = BigInt(l.overLimit);
  if (l.endUserTag !== undefined) request.endUserTag = l.endUserTag;
  if (l.lines !== undefined) request.lines = l.lines;
  if (l.priceVersion !== undefined) request.priceVersion = l.priceVersion;
  return request;
}

/** A torn last line is a charge whose append never resolved: its request reported no cost. */
function parseOrSkip(text: string): ChargeRequest[] {
  if (text.trim() === '') return [];
  try {
    return [fromLine(text)];
  } catch {
    return [];
  }
}

/**
 * A local append-only spool of charges that could not reach MongoDB. Each append is written
 * and fsync'd before it resolves, so a spooled charge survives a crash of the process (and
 * of the machine, as far as its disk keeps fsync'd data). Appends go to the open segment;
 * the drainer seals segments and deletes each file once all its charges are committed.
 * Every file is held under an exclusive lock with a heartbeat (see lockSegment), by a random
 * instance id rather than a pid, so a live owner's file is never adopted, whatever the pid
 * namespace; segments of a process that died (its lock went stale) are adopted by a live
 * process (at start and now and then).
 */
export class ChargeSpool {
  private open: OpenSegment | undefined;
  private readonly sealed: SealedSegment[] = [];
  private chain: Promise<unknown> = Promise.resolve();
  /** Appends waiting for the next write: one write and one fdatasync serve them all. */
  private waiting: WaitingAppend[] = [];
  /** Files this process holds the lock of. */
  private readonly owned = new Map<string, SegmentLock>();
  private readonly instance = randomBytes(6).toString('hex');

  constructor(
    private dir: string,
    private readonly log: Logger,
    private readonly leaseMs = SPOOL_LEASE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Creates the folder and adopts segments of processes that are gone. A folder that cannot be
   * created (read-only image) falls back to the OS temp folder, which still survives a crash of
   * the process, rather than failing the boot.
   */
  async start(): Promise<void> {
    try {
      await fs.mkdir(this.dir, { recursive: true });
    } catch (err) {
      const fallback = path.join(tmpdir(), 'farebox-spool', path.basename(this.dir));
      this.log.error({ err }, 'charge spool folder not writable; using the OS temp folder (give the spool persistent disk)');
      await fs.mkdir(fallback, { recursive: true });
      this.dir = fallback;
    }
    await this.adoptOrphans();
  }

  /** Adopts segments of processes that died since (called now and then by the drainer). */
  async adopt(): Promise<void> {
    try {
      await this.adoptOrphans();
    } catch (err) {
      this.log.warn({ err }, 'looking for spooled charges of stopped processes failed');
    }
  }

  /** Charges spooled and not yet known to be committed. */
  size(): number {
    const open = this.open ? this.open.charges.length - this.open.drained : 0;
    return this.sealed.reduce((n, s) => n + s.charges.length, open);
  }

  /**
   * When the oldest charge not yet known to be committed was spooled (ms; 0 for charges
   * adopted from a stopped process), or undefined when there is none.
   */
  oldest(): number | undefined {
    if (this.sealed[0]) return this.sealed[0].since;
    const open = this.open;
    return open && open.drained < open.charges.length ? open.times[open.drained] : undefined;
  }

  /**
   * Appends a charge durably; resolves once it is on disk. Appends that arrive while a write is
   * under way share the next one (group fdatasync), so a busy spool costs one sync per write,
   * not one per charge.
   */
  append(charge: ChargeRequest): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ charge, resolve, reject });
      if (this.waiting.length === 1) void this.serial(() => this.flush());
    });
  }

  /** Closes the open segment and returns every segment waiting to be committed. */
  async seal(): Promise<SpoolSegment[]> {
    await this.serial(async () => {
      const segment = this.open;
      this.open = undefined;
      if (!segment) return;
      await segment.handle.close();
      const charges = segment.charges.slice(segment.drained);
      if (charges.length > 0) this.sealed.push({ file: segment.file, charges, since: segment.times[segment.drained] ?? 0 });
      else await this.forget(segment.file);
    });
    return [...this.sealed];
  }

  /** The segments sealed so far (oldest first), leaving the open one open. */
  sealedSegments(): SpoolSegment[] {
    return [...this.sealed];
  }

  /**
   * The charges of the open segment not yet known to be committed, and the mark to hand to
   * `tailDrained` once they are: a spool that drains continuously commits from the file being
   * written instead of sealing a new file every time.
   */
  tail(): { charges: ChargeRequest[]; upTo: number } | undefined {
    const open = this.open;
    if (!open || open.drained >= open.charges.length) return undefined;
    return { charges: open.charges.slice(open.drained), upTo: open.charges.length };
  }

  /**
   * Marks the open segment's charges before `upTo` committed. A segment all committed and older
   * than `rotateMs` is deleted, so the next append starts a new file: files stay small, and a
   * process that adopts one after a crash commits few charges twice (idempotently).
   */
  async tailDrained(upTo: number, rotateMs: number): Promise<void> {
    await this.serial(async () => {
      const open = this.open;
      if (!open || upTo > open.charges.length) return;
      open.drained = Math.max(open.drained, upTo);
      if (open.drained < open.charges.length || this.now() - open.opened < rotateMs) return;
      this.open = undefined;
      await open.handle.close();
      await this.forget(open.file);
    });
  }

  /** Runs `step` after every step queued before it; a failed step does not stop later ones. */
  private serial<T>(step: () => Promise<T>): Promise<T> {
    const run = this.chain.then(step);
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Forgets a segment whose charges are all committed. */
  async done(segment: SpoolSegment): Promise<void> {
    await this.forget(segment.file);
    const i = this.sealed.findIndex((s) => s.file === segment.file);
    if (i >= 0) this.sealed.splice(i, 1);
  }

  /** Deletes a committed file, then lets its lock go. */
  private async forget(file: string): Promise<void> {
    await fs.rm(file, { force: true });
    // The lock goes after the file, so nobody can adopt a file whose charges are committed.
    await this.owned.get(file)?.release();
    this.owned.delete(file);
  }

  /** Writes every waiting append in one write and one fdatasync, then resolves them. */
  private async flush(): Promise<void> {
    const group = this.waiting;
    this.waiting = [];
    if (group.length === 0) return;
    try {
      const segment = this.open ?? (await this.newSegment());
      await segment.handle.appendFile(group.map((w) => toLine(w.charge)).join(''));
      await segment.handle.datasync();
      const at = this.now();
      for (const w of group) {
        segment.charges.push(w.charge);
        segment.times.push(at);
      }
      for (const w of group) w.resolve();
    } catch (err) {
      for (const w of group) w.reject(err);
    }
  }

  /**
   * Keeps a charge that MongoDB refuses for good (e.g. its account was deleted) in
   * `set-aside.jsonl`, which is never drained automatically: an operator decides.
   */
  async setAside(charge: ChargeRequest): Promise<void> {
    const handle = await fs.open(path.join(this.dir, 'set-aside.jsonl'), 'a');
    try {
      await handle.appendFile(toLine(charge));
      await handle.datasync();
    } finally {
      await handle.close();
    }
  }

  private async newSegment(): Promise<OpenSegment> {
    const file = path.join(this.dir, `spool-${this.instance}-${randomBytes(6).toString('hex')}.jsonl`);
    // Locked before it exists, so no other process can see it unowned.
    const lock = await this.lock(file);
    if (!lock) throw new Error(`spool file ${file} is locked by another process`);
    this.owned.set(file, lock);
    const handle = await fs.open(file, 'a');
    // The new file's name must be durable too, or a crash could lose the whole segment.
    const dir = await fs.open(this.dir, 'r');
    await dir.sync().finally(() => dir.close());
    this.open = { file, handle, charges: [], times: [], drained: 0, opened: this.now() };
    return this.open;
  }

  private lock(file: string): Promise<SegmentLock | undefined> {
    return lockSegment(file, this.leaseMs, (err) => this.lost(file, err));
  }

  /**
   * This process's lock on a file was taken over (it was frozen longer than the lease): the
   * file may be adopted by another process, so its charges, still known here, are spooled again
   * in a new segment. A charge committed twice is recorded once (commits are idempotent by
   * request id), whereas a charge appended to a file someone else already drained would be lost.
   */
  private lost(file: string, err: Error): void {
    this.log.error({ err }, 'lost the lock of a charge spool file; spooling its charges again');
    this.owned.delete(file);
    const charges: ChargeRequest[] = [];
    void this.serial(async () => {
      if (this.open?.file === file) {
        charges.push(...this.open.charges.slice(this.open.drained));
        await this.open.handle.close().catch(() => undefined);
        this.open = undefined;
      }
      const i = this.sealed.findIndex((s) => s.file === file);
      if (i >= 0) charges.push(...(this.sealed.splice(i, 1)[0]?.charges ?? []));
    })
      .then(() => Promise.all(charges.map((c) => this.append(c))))
      .catch((e: unknown) => this.log.error({ err: e }, 're-spooling charges failed'));
  }

  private async adoptOrphans(): Promise<void> {
    const names = await fs.readdir(this.dir);
    for (const name of names) {
      const file = path.join(this.dir, name);
      if (!FILE.test(name) || this.owned.has(file)) continue;
      // Locked by a live process (whatever its pid): not ours to take.
      const lock = await this.lock(file);
      if (!lock) continue;
      this.owned.set(file, lock);
      const text = await fs.readFile(file, 'utf8').catch(() => undefined);
      if (text === undefined) {
        // Committed and deleted by its owner just before it let go.
        this.owned.delete(file);
        await lock.release();
        continue;
      }
      const charges = text.split('\n').flatMap(parseOrSkip);
      this.sealed.push({ file, charges, since: 0 });
      this.log.warn({ charges: charges.length }, 'adopted spooled charges of a process that stopped');
    }
    await this.dropLeftoverLocks(names);
  }

  /** Lock folders whose file is gone (an owner died between deleting it and unlocking). */
  private async dropLeftoverLocks(names: readonly string[]): Promise<void> {
    const present = new Set(names);
    for (const name of names) {
      const file = LOCK_DIR.exec(name)?.[1];
      if (!file || present.has(file)) continue;
      const lock = await this.lock(path.join(this.dir, file));
      await lock?.release();
    }
  }
}
