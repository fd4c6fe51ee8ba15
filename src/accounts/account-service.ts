import { GatewayError } from '../errors/gateway-error.js';
import { newId } from '../util/ids.js';
import type { AccountDoc } from './account-types.js';
import type { AccountCollections } from './account-collection.js';

/** Accounts: creation and lookup (credits are the ledger's, see `LedgerCredits`). */
export class AccountService {
  constructor(private readonly c: AccountCollections) {}

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
}
