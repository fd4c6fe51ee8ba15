import { MongoServerError, type MongoClient } from 'mongodb';
import type { Collections } from '../db/collections.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { LedgerDoc } from '../ledger/ledger-types.js';
import { newId } from '../util/ids.js';
import type { AccountDoc } from './account-types.js';

/** Kinds of credit: a top-up ends the free tier, a grant does not. */
export type CreditKind = 'topup' | 'grant';

/** Result of a credit: the entry and whether this call created it. */
export interface CreditResult {
  entry: LedgerDoc;
  account: AccountDoc;
  created: boolean;
}

const DUPLICATE_KEY = 11000;

/** Accounts and the credits that fund them. */
export class AccountService {
  constructor(
    private readonly client: MongoClient,
    private readonly c: Collections,
    private readonly onChange: (accountId: string) => Promise<void> = async () => {},
  ) {}

  /** Creates an empty account on the free tier. */
  async create(name: string | null): Promise<AccountDoc> {
    const doc: AccountDoc = {
      _id: newId('acct'),
      name,
      balance: 0n,
      free_tier: true,
      topped_up: 0n,
      granted: 0n,
      charged: 0n,
      absorbed: 0n,
      created_at: new Date(),
    };
    await this.c.accounts.insertOne(doc);
    return doc;
  }

  /** One account, or 404. */
  async get(accountId: string): Promise<AccountDoc> {
    const doc = await this.c.accounts.findOne({ _id: accountId });
    if (!doc) throw new GatewayError('not_found', `No account '${accountId}'`, { param: 'account_id' });
    return doc;
  }

  /**
   * Credits an account once per reference: the entry and the balance change commit together,
   * and a repeated reference returns the original entry and credits nothing.
   */
  async credit(accountId: string, kind: CreditKind, amount: bigint, reference: string): Promise<CreditResult> {
    await this.get(accountId);
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
          await this.c.ledger.insertOne(entry, { session });
          const inc = kind === 'topup' ? { balance: amount, topped_up: amount } : { balance: amount, granted: amount };
          const set = kind === 'topup' ? { free_tier: false } : {};
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
    if (created) await this.onChange(accountId);
    return { entry, account: await this.get(accountId), created };
  }
}
