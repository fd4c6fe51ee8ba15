import { type AccountCollections, ONLY_ACCOUNTS } from '../accounts/index.js';
import type { LedgerCollections } from './ledger-collection.js';
import { entryHash, GENESIS_HASH } from './ledger-chain.js';

/** Where and why an account's chain first fails to verify. */
export interface ChainBreak {
  /** The entry at which the chain breaks (null: the account's head points past the last entry). */
  entry_id: string | null;
  seq: number;
  reason: 'hash_mismatch' | 'prev_hash_mismatch' | 'sequence_gap' | 'head_mismatch';
}

/** What a walk of one account's chain found. */
export interface ChainReport {
  account_id: string;
  ok: boolean;
  /** Chained entries walked (up to and including the break). */
  entries: number;
  /** Entries written before the account's chain began (no `seq`): not covered by it. */
  unchained: number;
  head: { seq: number; hash: string } | null;
  break: ChainBreak | null;
}

/**
 * Walks an account's ledger in chain order and reports the first break: an entry whose
 * stored hash is not the hash of its canonical form (it was edited), whose `prev_hash` is not
 * its predecessor's hash, or a missing link; finally, the account's recorded head must be the
 * last entry (an entry deleted from the end).
 */
export async function verifyLedgerChain(c: AccountCollections & LedgerCollections, accountId: string): Promise<ChainReport> {
  const account = await c.accounts.findOne({ _id: accountId }, { projection: { ledger_head: 1 } });
  const unchained = await c.ledger.countDocuments({ account_id: accountId, seq: { $exists: false } });
  const report: ChainReport = { account_id: accountId, ok: true, entries: 0, unchained, head: account?.ledger_head ?? null, break: null };
  let prev = GENESIS_HASH;
  let expected = 1;
  const fail = (b: ChainBreak): ChainReport => ({ ...report, ok: false, break: b });
  // An operator's walk, not a hot path: sorted without an index (see ensureIndexes), on disk if large.
  for await (const entry of c.ledger.find({ account_id: accountId, seq: { $exists: true } }).sort({ seq: 1 }).allowDiskUse(true)) {
    const seq = entry.seq ?? 0;
    report.entries += 1;
    if (seq !== expected) return fail({ entry_id: entry._id, seq, reason: 'sequence_gap' });
    if (entry.prev_hash !== prev) return fail({ entry_id: entry._id, seq, reason: 'prev_hash_mismatch' });
    if (entry.hash !== entryHash(entry)) return fail({ entry_id: entry._id, seq, reason: 'hash_mismatch' });
    prev = entry.hash;
    expected += 1;
  }
  const head = account?.ledger_head;
  if ((head?.seq ?? 0) !== expected - 1 || (head && head.hash !== prev)) {
    return fail({ entry_id: null, seq: head?.seq ?? 0, reason: 'head_mismatch' });
  }
  return report;
}

/** Walks every account's chain; returns how many were checked and the reports of broken ones. */
export async function verifyAllLedgerChains(c: AccountCollections & LedgerCollections): Promise<{ accounts: number; broken: ChainReport[] }> {
  let accounts = 0;
  const broken: ChainReport[] = [];
  for await (const a of c.accounts.find(ONLY_ACCOUNTS, { projection: { _id: 1 } })) {
    accounts += 1;
    const report = await verifyLedgerChain(c, a._id);
    if (!report.ok) broken.push(report);
  }
  return { accounts, broken };
}
