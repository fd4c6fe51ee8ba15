import type { Readable } from 'node:stream';
import type { AccountCollections } from '../accounts/index.js';
import { verifyAllLedgerChains, verifyLedgerChain, type ChainReport } from './chain-verify.js';
import type { LedgerCollections } from './ledger-collection.js';
import { listLedger, type LedgerPage } from './ledger-query.js';
import { ledgerCsv } from './records/csv-export.js';
import type { TimeRange } from './records/record-filters.js';

/** The read side of the ledger, as routes see it: pages, the chain check and the CSV export. */
export class LedgerReads {
  constructor(private readonly c: AccountCollections & LedgerCollections) {}

  /** A page of an account's entries, newest first. */
  list(accountId: string, limit: number, cursor?: string): Promise<LedgerPage> {
    return listLedger(this.c, accountId, limit, cursor);
  }

  /** Re-hashes an account's entries and says where the chain breaks, if it does. */
  verify(accountId: string): Promise<ChainReport> {
    return verifyLedgerChain(this.c, accountId);
  }

  /** Walks every account's chain: how many were checked, and the reports of broken ones. */
  verifyAll(): Promise<{ accounts: number; broken: ChainReport[] }> {
    return verifyAllLedgerChains(this.c);
  }

  /** Entries in a range (one account's, or every account's), newest first, as CSV. */
  csv(range: TimeRange, accountId: string | undefined, onError: (err: Error) => void): Readable {
    return ledgerCsv(this.c, range, accountId, onError);
  }
}
