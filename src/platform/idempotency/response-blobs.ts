import { Binary, type Collection } from 'mongodb';

/** One piece of a large stored response. */
export interface BlobChunkDoc {
  _id: string;
  ref: string;
  n: number;
  data: Binary;
  expires_at: Date;
}

/** MongoDB documents stay well below their 16 MB limit. */
const CHUNK_BYTES = 8 * 1024 * 1024;

/**
 * Large idempotent responses (image results) kept in MongoDB in chunks, by reference, so Redis
 * holds only the reference; a TTL index removes them with the key.
 */
export class ResponseBlobs {
  constructor(private readonly chunks: Collection<BlobChunkDoc>) {}

  /** Creates the TTL index (release step and tests). */
  async ensureIndexes(): Promise<void> {
    await this.chunks.createIndex({ expires_at: 1 }, { expireAfterSeconds: 0 });
    await this.chunks.createIndex({ ref: 1, n: 1 });
  }

  /** Keeps a body under a reference until `expiresAt`. */
  async put(ref: string, body: string, expiresAt: Date): Promise<void> {
    const bytes = Buffer.from(body, 'utf8');
    const docs: BlobChunkDoc[] = [];
    for (let n = 0, at = 0; at < bytes.length || n === 0; n += 1, at += CHUNK_BYTES) {
      docs.push({ _id: `${ref}:${n}`, ref, n, data: new Binary(bytes.subarray(at, at + CHUNK_BYTES)), expires_at: expiresAt });
    }
    await this.chunks.insertMany(docs, { ordered: false });
  }

  /** The body kept under a reference, or undefined when it is gone. */
  async get(ref: string): Promise<string | undefined> {
    const docs = await this.chunks.find({ ref }).sort({ n: 1 }).toArray();
    if (docs.length === 0) return undefined;
    return Buffer.concat(docs.map((d) => Buffer.from(d.data.buffer))).toString('utf8');
  }
}
