import { hash } from 'node:crypto';
import { canonicalJson } from '../platform/util/index.js';
import type { ChainHead } from '../accounts/index.js';
import type { LedgerDoc } from './ledger-types.js';

/** The `prev_hash` of an account's first chained entry. */
export const GENESIS_HASH = '0'.repeat(64);

export type { ChainHead } from '../accounts/index.js';

/** The fields a chained entry adds to an entry. */
export interface ChainLink {
  seq: number;
  prev_hash: string;
  hash: string;
}

/** The canonical JSON text of an entry: every field but its own `hash`. */
export function canonicalEntry(entry: object): string {
  const { hash: _hash, ...rest } = entry as Record<string, unknown>;
  // Any field an entry carries, now or added later, is covered by its hash.
  return canonicalJson(rest);
}

/** SHA-256 (hex) of an entry's canonical form. */
export function entryHash(entry: object): string {
  return hash('sha256', canonicalEntry(entry), 'hex');
}

/**
 * Links an entry after `head` (undefined: the account's first chained entry): sets its
 * sequence number and `prev_hash`, then its own `hash`. Returns the new head.
 */
export function linkEntry(entry: LedgerDoc, head: ChainHead | undefined): ChainHead {
  entry.seq = (head?.seq ?? 0) + 1;
  entry.prev_hash = head?.hash ?? GENESIS_HASH;
  delete entry.hash;
  entry.hash = entryHash(entry);
  return { seq: entry.seq, hash: entry.hash };
}
