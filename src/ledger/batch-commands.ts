import { type ClientSession, type Db, type Document, MongoError, MongoErrorLabel } from 'mongodb';
import { isFailoverCode } from '../platform/errors/index.js';

/** What a command needs of a collection: its name. */
type Named = { readonly collectionName: string };

/** One statement of an `update` command. */
export interface UpdateStatement {
  q: Document;
  u: Document | Document[];
  upsert?: boolean;
}

/**
 * A document-level error of a write command (a duplicate key, say): the transaction is void.
 * A MongoDB error with the reply's labels, so `withTransaction` and the 503 classification see
 * it as they would the helpers' bulk write error; one whose code says the primary changed
 * under the write is labelled a transient transaction error (nothing of the transaction
 * committed, so it is run again on the next primary).
 */
export class BatchWriteError extends MongoError {
  constructor(code: number, message: string, labels: readonly string[] = []) {
    super(message);
    this.code = code;
    for (const label of labels) this.addErrorLabel(label);
    if (isFailoverCode(code)) this.addErrorLabel(MongoErrorLabel.TransientTransactionError);
  }

  override get name(): string {
    return 'BatchWriteError';
  }
}

/** The reply of a write command: document-level errors are reported here, not thrown. */
export interface WriteReply {
  writeErrors?: { code: number; errmsg: string }[];
  errorLabels?: string[];
}

function throwWriteErrors(reply: WriteReply): void {
  const [first] = reply.writeErrors ?? [];
  if (first) throw new BatchWriteError(first.code, first.errmsg, reply.errorLabels);
}

/**
 * The writes of a ledger batch as plain database commands (`findAndModify`, `insert`,
 * `update`) inside the batch's transaction. The collection helpers wrap each command in
 * option resolution and bulk-operation and result objects that a batch never reads; sent as
 * they go on the wire, a lone batch's round trips cost the process less CPU. A command
 * failure (a write conflict, say) throws as from the helpers, with its labels, so
 * `withTransaction` retries it the same way.
 */
export class BatchCommands {
  constructor(private readonly db: Db) {}

  /** Updates one document; returns it as it was before (money fields as bigint), or null. */
  async findAndModify(collection: Named, query: Document, update: Document[], fields: Document, session: ClientSession): Promise<Document | null> {
    const command = { findAndModify: collection.collectionName, query, update, new: false, fields };
    const reply = await this.db.command(command, { session, useBigInt64: true });
    return (reply.value as Document | null) ?? null;
  }

  /** Inserts documents in order; the first document-level error throws. */
  async insert(collection: Named, documents: readonly Document[], session: ClientSession): Promise<void> {
    throwWriteErrors(await this.db.command({ insert: collection.collectionName, documents, ordered: true }, { session }));
  }

  /**
   * Applies update statements; any document-level error throws. Resolves with the documents
   * the statements matched or upserted (MongoDB's `n`), so a conditional statement's outcome
   * can be told from the count.
   */
  async update(collection: Named, updates: UpdateStatement[], session: ClientSession): Promise<number> {
    if (updates.length === 0) return 0;
    const reply = (await this.db.command({ update: collection.collectionName, updates, ordered: false }, { session })) as WriteReply & { n?: number };
    throwWriteErrors(reply);
    return reply.n ?? 0;
  }
}
