import calculateSlot from 'cluster-key-slot';

/** The Redis Cluster hash slot of a key (CRC16 of its `{hash tag}`, or of the whole key). */
export function keySlot(key: string): number {
  return calculateSlot(key);
}

/**
 * Throws unless every key lives in one hash slot. A script or transaction over keys of several
 * slots fails on a cluster with CROSSSLOT; checking on every call makes such a mistake fail on a
 * single Redis (in development and tests) too.
 */
export function assertOneSlot(what: string, keys: readonly string[]): void {
  const first = keys[0];
  if (first === undefined) return;
  const slot = keySlot(first);
  const other = keys.find((k) => keySlot(k) !== slot);
  if (other !== undefined) throw new Error(`${what} spans Redis Cluster slots: ${first} (${slot}) and ${other} (${keySlot(other)})`);
}
