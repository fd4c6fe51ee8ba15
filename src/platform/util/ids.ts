import { randomBytes } from 'node:crypto';

/** A random public id with a type prefix (`acct_…`, `key_…`, `req_…`); never derived from secrets. */
export function newId(prefix: 'acct' | 'key' | 'req' | 'chatcmpl'): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}
