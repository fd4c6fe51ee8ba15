import { type KeyCollections, lifetimeSpend } from '../../src/accounts/index.js';

/** A key's lifetime spend as MongoDB has it (key document and lifetime document), nano-USD; -1 when there is no such key. */
export async function keyLifetimeSpend(c: KeyCollections, keyId: string): Promise<bigint> {
  const key = await c.keys.findOne({ _id: keyId }, { projection: { spend: 1 } });
  return key ? ((await lifetimeSpend(c, [key])).get(keyId) ?? -1n) : -1n;
}
