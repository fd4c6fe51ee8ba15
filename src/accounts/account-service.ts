import { GatewayError } from '../platform/errors/index.js';
import { newId } from '../platform/util/index.js';
import type { SharedLimits } from './keys/key-types.js';
import type { AccountDoc } from './account-types.js';
import { accountById, type AccountCollections } from './account-collection.js';
import { listAccounts, type AccountPage } from './account-list.js';

/** Accounts: creation and lookup (credits are the ledger's, see `LedgerCredits`). */
export class AccountService {
  constructor(
    private readonly c: AccountCollections,
    /** Announces a change admission must see at once (its caches of account limits). */
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
  /** A page of accounts by id, optionally those whose id or name contains `q`. */
  list(limit: number, cursor?: string, q?: string): Promise<AccountPage> {
    return listAccounts(this.c, limit, cursor, q);
  }

  async get(accountId: string): Promise<AccountDoc> {
    const doc = await this.c.accounts.findOne(accountById(accountId));
    if (!doc) throw new GatewayError('not_found', `No account '${accountId}'`, { param: 'account_id' });
    return doc;
  }

  /**
   * Replaces the account's limits across all its keys (spend caps per window, rpm, tpm); an
   * empty set removes them. Admission applies them from the next request on.
   */
  async setLimits(accountId: string, limits: SharedLimits): Promise<AccountDoc> {
    const empty = Object.keys(limits).length === 0;
    const update = empty ? { $unset: { limits: '' as const } } : { $set: { limits } };
    const doc = await this.c.accounts.findOneAndUpdate(accountById(accountId), update, { returnDocument: 'after' });
    if (!doc) throw new GatewayError('not_found', `No account '${accountId}'`, { param: 'account_id' });
    await this.onChange(accountId);
    return doc;
  }
}
