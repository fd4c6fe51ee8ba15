import { modelInputSchema } from '../../catalog/index.js';
import { sharedLimitsSchema } from '../../accounts/index.js';
import { accountListQuerySchema, createAccountSchema, creditSchema, ledgerQuerySchema } from '../routes/admin/admin-schemas.js';
import { adminRecordListSchema, adminUsageSchema, recordsCsvSchema } from '../routes/requests/request-schemas.js';
import { add, envelope, fromZod, page, queryOf, ref, type Paths } from './openapi-builders.js';
import { keyItemPaths, keyListPaths, type Audience } from './openapi-paths-keys.js';

const csv = { type: 'string', description: 'CSV, streamed; exact decimal amounts' };

/** Accounts: list, create, read, limits, credits, ledger and its chain check, keys. */
function accountPaths(paths: Paths, who: Audience): void {
  const account = '/v1/admin/accounts/{account_id}';
  add(paths, 'get', '/v1/admin/accounts', { ...who, summary: 'List accounts, newest first', parameters: queryOf(accountListQuerySchema), response: page(ref('Account')) });
  add(paths, 'post', '/v1/admin/accounts', { ...who, summary: 'Create an account', status: 201, body: fromZod(createAccountSchema), response: envelope(ref('Account')) });
  add(paths, 'get', account, { ...who, summary: 'Read an account with its spend totals', response: envelope(ref('AccountDetail')) });
  add(paths, 'put', `${account}/limits`, { ...who, summary: 'Replace the account\'s limits across all its keys (`{}` removes them)', body: fromZod(sharedLimitsSchema), response: envelope(ref('AccountDetail')) });
  for (const [path, what] of [['topups', 'Top up an account'], ['grants', 'Grant promotional credit']] as const) {
    add(paths, 'post', `${account}/${path}`, {
      ...who,
      summary: what,
      description: 'Idempotent by `reference`: the same reference again answers 200 with the same result and credits nothing.',
      status: 201,
      also: { 200: envelope(ref('Credit')) },
      body: fromZod(creditSchema),
      response: envelope(ref('Credit')),
    });
  }
  add(paths, 'get', `${account}/ledger`, { ...who, summary: 'The account\'s ledger, newest first', parameters: queryOf(ledgerQuerySchema), response: page(ref('LedgerEntry')) });
  add(paths, 'get', `${account}/ledger/verify`, { ...who, summary: 'Walk the ledger\'s hash chain and report the first break', response: envelope(ref('ChainReport')) });
  keyListPaths(paths, `${account}/keys`, who);
  keyItemPaths(paths, '/v1/admin', who);
}

/** The catalog as operators see it, and its edits. */
function modelPaths(paths: Paths, who: Audience): void {
  const item = '/v1/admin/models/{vendor}/{model}';
  add(paths, 'get', '/v1/admin/models', { ...who, summary: 'Every catalog entry with its routes and availability', response: envelope({ type: 'array', items: ref('OperatorModel') }) });
  add(paths, 'get', item, { ...who, summary: 'Read a catalog entry', response: envelope(ref('OperatorModel')) });
  add(paths, 'put', item, { ...who, summary: 'Create or replace a catalog entry', body: fromZod(modelInputSchema), response: envelope(ref('OperatorModel')) });
  add(paths, 'delete', item, {
    ...who,
    summary: 'Retire a catalog entry',
    response: envelope({ type: 'object', properties: { id: { type: 'string' }, retired: { const: true } }, required: ['id', 'retired'] }),
  });
}

/** Request records, usage and CSV exports across accounts. */
function recordPaths(paths: Paths, who: Audience): void {
  add(paths, 'get', '/v1/admin/requests', { ...who, summary: 'List request records, newest first', parameters: queryOf(adminRecordListSchema), response: page(ref('RequestRecord')) });
  add(paths, 'get', '/v1/admin/requests/{request_id}', { ...who, summary: 'Read one request record', response: envelope(ref('RequestRecord')) });
  add(paths, 'get', '/v1/admin/usage', { ...who, summary: 'Usage per UTC day and model (default: the last 30 days)', parameters: queryOf(adminUsageSchema), response: envelope({ type: 'array', items: ref('UsageRow') }) });
  add(paths, 'get', '/v1/admin/requests.csv', { ...who, summary: 'Export request records as CSV', parameters: queryOf(recordsCsvSchema), contentType: 'text/csv', response: csv });
  add(paths, 'get', '/v1/admin/ledger.csv', { ...who, summary: 'Export ledger entries as CSV', parameters: queryOf(adminUsageSchema), contentType: 'text/csv', response: csv });
}

/** The operator API (`/v1/admin/…`), except webhooks (see openapi-paths-webhooks.ts). */
export function adminPaths(paths: Paths, who: Audience): void {
  accountPaths(paths, who);
  modelPaths(paths, who);
  recordPaths(paths, who);
}
