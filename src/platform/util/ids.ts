import { randomFillSync } from 'node:crypto';

/** Random bytes drawn ahead, as `crypto.randomUUID` does: one system call per 256 ids, not one per id. */
const POOL = Buffer.alloc(12 * 256);
let offset = POOL.length;

/** A random public id with a type prefix (`acct_…`, `key_…`, `req_…`); never derived from secrets. */
export function newId(prefix: 'acct' | 'key' | 'req' | 'chatcmpl'): string {
  if (offset === POOL.length) {
    randomFillSync(POOL);
    offset = 0;
  }
  const id = POOL.toString('hex', offset, offset + 12);
  offset += 12;
  return `${prefix}_${id}`;
}
