import { keysetPage } from '../platform/db/index.js';
import type { LedgerDoc } from './ledger-types.js';
import type { LedgerCollections } from './ledger-collection.js';

/** A page of ledger entries, newest first. */
export interface LedgerPage {
  entries: LedgerDoc[];
  nextCursor: string | null;
}

/** Lists an account's ledger with an opaque keyset cursor (stable under concurrent writes). */
export async function listLedger(c: LedgerCollections, accountId: string, limit: number, cursor?: string): Promise<LedgerPage> {
  const page = await keysetPage(c.ledger, { account_id: accountId }, limit, cursor);
  return { entries: page.items, nextCursor: page.nextCursor };
}

/** Sums an account's ledger: what the balance must equal (credits − charged). */
export async function ledgerBalance(c: LedgerCollections, accountId: string): Promise<bigint> {
  let total = 0n;
  for await (const e of c.ledger.find({ account_id: accountId }, { projection: { credit: 1, charged: 1 } })) {
    total += e.credit - e.charged;
  }
  return total;
}
