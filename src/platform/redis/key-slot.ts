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
  // Keys that share one `{hash tag}` share its slot: a string comparison in place, where a
  // CRC16 (or a copy of the tag) of each key on every script call was a measurable part of a
  // request's CPU. A key whose first `{` starts `{tag}` has that tag: it holds no `}`.
  const tag = hashTag(first);
  if (tag !== undefined) {
    const braced = `{${tag}}`;
    if (keys.every((k) => k.startsWith(braced, k.indexOf('{')))) return;
  }
  const slot = keySlot(first);
  const other = keys.find((k) => keySlot(k) !== slot);
  if (other !== undefined) throw new Error(`${what} spans Redis Cluster slots: ${first} (${slot}) and ${other} (${keySlot(other)})`);
}

/** The part of a key Redis Cluster hashes when it has one: between the first `{` and the next `}`, if not empty. */
export function hashTag(key: string): string | undefined {
  const open = key.indexOf('{');
  if (open === -1) return undefined;
  const close = key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : undefined;
}
