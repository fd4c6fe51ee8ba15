import { MongoServerError, type MongoClient } from 'mongodb';
import { accountById, type AccountCollections, type AccountDoc } from '../accounts/index.js';
import { GatewayError } from '../platform/errors/index.js';
import { linkEntry } from './ledger-chain.js';
import type { LedgerCollections } from './ledger-collection.js';
import type { LedgerDoc } from './ledger-types.js';
import { DUPLICATE_KEY } from '../platform/db/index.js';

/** Kinds of credit: a top-up ends the free tier, a grant does not. */
export type CreditKind = 'topup' | 'grant';

/** Result of a credit: the entry and whether this call created it. */
export interface CreditResult {
  entry: LedgerDoc;
  account: AccountDoc;
  created: boolean;
}

/** The credits that fund accounts: a ledger entry and the balance change, written together. */
export class LedgerCredits {
  constructor(
    private readonly client: MongoClient,
    private readonly c: AccountCollections & LedgerCollections,
    private readonly onChange: (accountId: string, entry: LedgerDoc) => Promise<void> = async () => {},
  ) {}

  /**
   * Credits an account once per reference: the entry and the balance change commit together,
   * and a repeated reference returns the original entry and credits nothing.
   */
  async credit(accountId: string, kind: CreditKind, amount: bigint, reference: string): Promise<CreditResult> {
    await this.account(accountId);
    const entryId = `${kind}:${accountId}:${reference}`;
    const session = this.client.startSession();
    let created = false;
    try {
      await session.withTransaction(
        async () => {
          created = false;
          const entry: LedgerDoc = {
            _id: entryId, account_id: accountId, kind, credit: amount, cost: 0n, charged: 0n, absorbed: 0n,
            key_id: null, model: null, reference, units: null, created_at: new Date(),
          };
          // Reading the head and writing the account in one transaction keeps the chain
          // linear even while the charge writer commits for the same account.
          const before = await this.c.accounts.findOne({ _id: accountId }, { session, projection: { ledger_head: 1 } });
          const head = linkEntry(entry, before?.ledger_head);
          await this.c.ledger.insertOne(entry, { session });
          const inc = kind === 'topup' ? { balance: amount, topped_up: amount } : { balance: amount, granted: amount };
          const set = kind === 'topup' ? { free_tier: false, ledger_head: head } : { ledger_head: head };
          await this.c.accounts.updateOne({ _id: accountId }, { $inc: inc, $set: set }, { session });
          created = true;
        },
        { writeConcern: { w: 'majority', journal: true } },
      );
    } catch (err) {
      if (!(err instanceof MongoServerError && err.code === DUPLICATE_KEY)) throw err;
    } finally {
      await session.endSession();
    }
    const entry = await this.c.ledger.findOne({ _id: entryId });
    if (!entry) throw new Error(`credit ${entryId} vanished`);
    if (created) await this.onChange(accountId, entry);
    return { entry, account: await this.account(accountId), created };
  }

  /** The credited account, or 404. */
  private async account(accountId: string): Promise<AccountDoc> {
    const doc = await this.c.accounts.findOne(accountById(accountId));
    if (!doc) throw new GatewayError('not_found', `No account '${accountId}'`, { param: 'account_id' });
    return doc;
  }
}
