import { WriteConcern, type Collection, type Document } from 'mongodb';
import type { Logger } from 'pino';
import type { RequestRecordDoc } from './request-record-types.js';
import { DUPLICATE_KEY } from '../../platform/db/index.js';
import type { WriteReply } from '../batch-commands.js';

/** Bounds of the batched writer. */
export interface RecordWriterOptions {
  /** Records per insert command (bounded, so a batch stays far under MongoDB's 16 MB). */
  maxBatch: number;
  /** Longest a record waits in the buffer before a flush starts, ms. */
  flushMs: number;
  /** Records buffered at most (while a write is slow or MongoDB is down); more are dropped. */
  maxBuffered: number;
}

const DEFAULTS: RecordWriterOptions = { maxBatch: 500, flushMs: 25, maxBuffered: 20_000 };

/** Records of a batch that were neither stored nor already there (a replayed id is a duplicate). */
function lostIn(reply: WriteReply): number {
  return (reply.writeErrors ?? []).filter((e) => e.code !== DUPLICATE_KEY).length;
}

/**
 * Writes request records in batches (one unordered `insert` command per batch, at most one in
 * flight), never one write per request. The command is sent as it goes on the wire, without the
 * collection helper's bulk-operation and result objects, which a batch never reads. Duplicate
 * ids (a replayed record) are ignored. Records are not money: when MongoDB is down or the buffer
 * is full they are dropped, counted and logged, and nothing waits on them.
 */
export class RecordWriter {
  private buffer: RequestRecordDoc[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private inFlight = 0;
  private readonly options: RecordWriterOptions;

  constructor(
    private readonly collection: Collection<RequestRecordDoc>,
    private readonly log: Logger,
    private readonly onDropped: (count: number) => void,
    options: Partial<RecordWriterOptions> = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  /** Records buffered or being written. */
  get pending(): number {
    return this.buffer.length + (this.writing === undefined ? 0 : this.inFlight);
  }

  /** Queues a record; a flush follows within `flushMs` or as soon as a batch is full. */
  add(doc: RequestRecordDoc): void {
    if (this.buffer.length >= this.options.maxBuffered) {
      this.drop(1, 'request record buffer full');
      return;
    }
    this.buffer.push(doc);
    if (this.buffer.length >= this.options.maxBatch) this.kick();
    else this.timer ??= setTimeout(() => this.kick(), this.options.flushMs).unref();
  }

  /** Writes everything buffered now; resolves when the buffer is empty and no write runs. */
  async drain(): Promise<void> {
    while (this.buffer.length > 0 || this.writing !== undefined) {
      this.kick();
      await this.writing;
    }
  }

  private kick(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.writing !== undefined || this.buffer.length === 0) return;
    const batch = this.buffer.splice(0, this.options.maxBatch);
    this.inFlight = batch.length;
    this.writing = this.write(batch).finally(() => {
      this.writing = undefined;
      this.inFlight = 0;
      if (this.buffer.length > 0) this.timer ??= setTimeout(() => this.kick(), this.options.flushMs).unref();
    });
  }

  private async write(batch: RequestRecordDoc[]): Promise<void> {
    const command: Document = { insert: this.collection.collectionName, documents: batch, ordered: false };
    if (this.collection.writeConcern) WriteConcern.apply(command, this.collection.writeConcern);
    try {
      const lost = lostIn(await this.collection.db.command(command));
      if (lost > 0) this.drop(lost, 'request records not stored');
    } catch (err) {
      // The command failed as a whole (MongoDB unreachable, say): no record of it is known stored.
      this.drop(batch.length, 'request records not stored', err);
    }
  }

  private drop(count: number, message: string, err?: unknown): void {
    this.onDropped(count);
    this.log.warn({ err, dropped: count }, message);
  }
}
