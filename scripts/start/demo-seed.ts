import { AccountService, KeyService } from '../../src/accounts/index.js';
import { collections } from '../../src/store/index.js';
import { connectWritable } from '../../src/platform/db/index.js';
import { LedgerCredits } from '../../src/ledger/index.js';
import { aliasAgentModels } from './agent-aliases.js';

/** What the demo seed made: ids and the raw key, which exists nowhere else. */
export interface DemoSeed {
  accountId: string;
  keyId: string;
  rawKey: string;
}

const DEMO_CREDIT_NANO = 5_000_000_000n;

/**
 * Creates the demo account with $5 of top-up (so priced local models work) and one
 * inference key, and lets the coding agents' default model ids answer as `local/echo`. Runs
 * only on the first start of a fresh data folder.
 */
export async function seedDemo(mongoUri: string, dbName: string): Promise<DemoSeed> {
  const mongo = await connectWritable(mongoUri, dbName);
  try {
    const c = collections(mongo.db);
    const account = await new AccountService(c).create('demo');
    await new LedgerCredits(mongo.client, c).credit(account._id, 'topup', DEMO_CREDIT_NANO, 'demo-initial-credit');
    const minted = await new KeyService(c).mint(account._id, { name: 'demo', role: 'inference', limits: {} });
    await aliasAgentModels(c.models);
    return { accountId: account._id, keyId: minted.doc._id, rawKey: minted.raw };
  } finally {
    await mongo.close();
  }
}
