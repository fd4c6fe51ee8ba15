import type { ClientSession } from 'mongodb';
import type { KeyCollections } from './key-collections.js';
import type { KeyDoc } from './key-types.js';

/** The period of a key's lifetime spend bucket (it has no `expires_at`, so it stays). */
export const LIFETIME_PERIOD = 'life';

/** The `_id` of a key's lifetime spend document. */
export function lifetimeSpendId(keyId: string): string {
  return `${keyId}:${LIFETIME_PERIOD}`;
}

/**
 * Lifetime spend of keys, nano-USD: the key document's own `spend` (what charges added before
 * lifetime spend moved) plus its lifetime spend bucket, which every charge now increments in
 * the same write as its day's spend.
 */
export async function lifetimeSpend(c: KeyCollections, keys: readonly Pick<KeyDoc, '_id' | 'spend'>[], session?: ClientSession): Promise<Map<string, bigint>> {
  const docs = keys.length === 0 ? [] : await c.keySpend.find({ _id: { $in: keys.map((k) => lifetimeSpendId(k._id)) } }, { session, projection: { amount: 1 } }).toArray();
  const moved = new Map(docs.map((d) => [d._id, d.amount]));
  return new Map(keys.map((k) => [k._id, k.spend + (moved.get(lifetimeSpendId(k._id)) ?? 0n)]));
}

/** Keys as read, with `spend` their whole lifetime spend (see {@link lifetimeSpend}). */
export async function withLifetimeSpend(c: KeyCollections, keys: KeyDoc[]): Promise<KeyDoc[]> {
  const spend = await lifetimeSpend(c, keys);
  return keys.map((k) => ({ ...k, spend: spend.get(k._id) ?? k.spend }));
}
