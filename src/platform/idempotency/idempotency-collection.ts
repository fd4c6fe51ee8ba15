import type { Collection, Db } from 'mongodb';
import { ResponseBlobs, type BlobChunkDoc } from './response-blobs.js';

/** The collection of large responses kept for idempotent replays, by reference (TTL). */
export interface IdempotencyCollections {
  readonly idempotentBlobs: Collection<BlobChunkDoc>;
}

/** The idempotency collection of a database (its name lives here only). */
export function idempotencyCollections(db: Db): IdempotencyCollections {
  return { idempotentBlobs: db.collection<BlobChunkDoc>('idempotent_blobs') };
}

/** Indexes of the kept responses (their TTL). */
export async function ensureIdempotencyIndexes(c: IdempotencyCollections): Promise<void> {
  await new ResponseBlobs(c.idempotentBlobs).ensureIndexes();
}
