import type { Db } from 'mongodb';
import type { KeyCollections } from './key-collections.js';
import type { KeySpendDoc } from './key-types.js';

/** Where spend buckets were kept before they moved into the accounts collection. */
const LEGACY_SPEND = 'key_spend';

/** Buckets moved per transaction: well under MongoDB's limits on a transaction's size. */
const MOVE_BATCH = 500;

/**
 * Moves the spend buckets left in `key_spend` into the accounts collection (see
 * `KeyCollections.keySpend`), one transaction per batch: each bucket is added to the one there,
 * if any, and deleted from `key_spend` in the same transaction, so a release that stops halfway
 * and runs again moves every bucket exactly once. Resolves with how many moved.
 */
export async function moveLegacySpend(db: Db, c: KeyCollections): Promise<number> {
  const legacy = db.collection<KeySpendDoc>(LEGACY_SPEND);
  const session = db.client.startSession();
  let moved = 0;
  try {
    for (;;) {
      let batch = 0;
      await session.withTransaction(async () => {
        const docs = await legacy.find({}, { session, limit: MOVE_BATCH }).toArray();
        batch = docs.length;
        if (batch === 0) return;
        await c.keySpend.bulkWrite(
          docs.map(({ _id, amount, key_id, period, expires_at }) => ({
            updateOne: { filter: { _id }, update: { $inc: { amount }, $setOnInsert: { key_id, period, ...(expires_at ? { expires_at } : {}) } }, upsert: true },
          })),
          { session },
        );
        await legacy.deleteMany({ _id: { $in: docs.map((d) => d._id) } }, { session });
      });
      if (batch === 0) return moved;
      moved += batch;
    }
  } finally {
    await session.endSession();
  }
}
