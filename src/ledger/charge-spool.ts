import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import type { ChargeRequest } from './apply-charges.js';

/** A file of spooled charges and what it holds. */
export interface SpoolSegment {
  readonly file: string;
  readonly charges: ChargeRequest[];
}

interface Line {
  requestId: string;
  accountId: string;
  keyId: string;
  model: string;
  cost: string;
  units?: Record<string, number>;
  at: string;
}

const FILE = /^spool-(\d+)-[0-9a-f]+\.jsonl$/;

/**
 * Spool files written or adopted by this process. A file with this process's pid that is not
 * here was left by an earlier process with the same pid (a restarted container is pid 1 again).
 */
const OWNED = new Set<string>();

function toLine(r: ChargeRequest): string {
  const line: Line = { requestId: r.requestId, accountId: r.accountId, keyId: r.keyId, model: r.model, cost: r.cost.toString(), at: r.at.toISOString() };
  if (r.units) line.units = r.units;
  return `${JSON.stringify(line)}\n`;
}

function fromLine(text: string): ChargeRequest {
  const l = JSON.parse(text) as Line;
  return { requestId: l.requestId, accountId: l.accountId, keyId: l.keyId, model: l.model, cost: BigInt(l.cost), units: l.units, at: new Date(l.at) };
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

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A local append-only spool of charges that could not reach MongoDB. Each append is written
 * and fsync'd before it resolves, so a spooled charge survives a crash of the process (and
 * of the machine, as far as its disk keeps fsync'd data). Appends go to the open segment;
 * the drainer seals segments and deletes each file once all its charges are committed.
 * Segments left by a process that died are adopted by a live process (at start and now and then).
 */
export class ChargeSpool {
  private open: { file: string; handle: fs.FileHandle; charges: ChargeRequest[] } | undefined;
  private readonly sealed: SpoolSegment[] = [];
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private dir: string,
    private readonly log: Logger,
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
    return this.sealed.reduce((n, s) => n + s.charges.length, this.open?.charges.length ?? 0);
  }

  /** Appends a charge durably; resolves once it is on disk. */
  append(charge: ChargeRequest): Promise<void> {
    const run = this.chain.then(async () => {
      const segment = this.open ?? (await this.newSegment());
      await segment.handle.appendFile(toLine(charge));
      await segment.handle.datasync();
      segment.charges.push(charge);
    });
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Closes the open segment and returns every segment waiting to be committed. */
  async seal(): Promise<SpoolSegment[]> {
    await (this.chain = this.chain.then(async () => {
      const segment = this.open;
      this.open = undefined;
      if (!segment) return;
      await segment.handle.close();
      this.sealed.push({ file: segment.file, charges: segment.charges });
    }));
    return [...this.sealed];
  }

  /** Forgets a segment whose charges are all committed. */
  async done(segment: SpoolSegment): Promise<void> {
    await fs.rm(segment.file, { force: true });
    OWNED.delete(segment.file);
    const i = this.sealed.indexOf(segment);
    if (i >= 0) this.sealed.splice(i, 1);
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

  private async newSegment(): Promise<{ file: string; handle: fs.FileHandle; charges: ChargeRequest[] }> {
    const file = this.ownFile();
    const handle = await fs.open(file, 'a');
    // The new file's name must be durable too, or a crash could lose the whole segment.
    const dir = await fs.open(this.dir, 'r');
    await dir.sync().finally(() => dir.close());
    this.open = { file, handle, charges: [] };
    return this.open;
  }

  private ownFile(): string {
    const file = path.join(this.dir, `spool-${process.pid}-${randomBytes(6).toString('hex')}.jsonl`);
    OWNED.add(file);
    return file;
  }

  private async adoptOrphans(): Promise<void> {
    for (const name of await fs.readdir(this.dir)) {
      const match = FILE.exec(name);
      if (!match || OWNED.has(path.join(this.dir, name))) continue;
      const pid = Number(match[1]);
      if (pid !== process.pid && alive(pid)) continue;
      // Renaming claims the segment: of several processes starting at once, one wins.
      const file = this.ownFile();
      try {
        await fs.rename(path.join(this.dir, name), file);
      } catch {
        continue;
      }
      const text = await fs.readFile(file, 'utf8');
      const charges = text.split('\n').flatMap(parseOrSkip);
      this.sealed.push({ file, charges });
      this.log.warn({ charges: charges.length }, 'adopted spooled charges of a process that stopped');
    }
  }
}
