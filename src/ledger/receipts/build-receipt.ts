import { formatUsd, type TokenSource } from '../../billing/index.js';
import type { CatalogModel } from '../../catalog/index.js';
import type { ChargeOutcome } from '../ledger-writer.js';
import type { Receipt } from './receipt-types.js';

/** What a settled request contributes to its receipt. */
export interface ReceiptFacts {
  requestId: string;
  accountId: string;
  keyId: string;
  /** The catalog entry billed: its id, and its price version when the charge names none. */
  model: Pick<CatalogModel, 'id' | 'priceVersion'>;
  endpoint: string;
  provider: string | null;
  charge: Pick<ChargeOutcome, 'cost' | 'charged' | 'absorbed' | 'lines' | 'priceVersion' | 'prevHash' | 'hash'>;
  tokenSource: TokenSource;
  /** HTTP status sent (499: the client left before an answer). */
  status: number;
  /** Error code of a failure inside a stream that had answered 200. */
  failure: string | undefined;
  /** The request whose stored answer was served, for a request answered from the cache. */
  cacheHitOf?: string;
  settledAt: Date;
}

/** How the request ended, in the receipt's terms. */
function outcomeOf(status: number, failure: string | undefined, cacheHitOf: string | undefined): string {
  if (cacheHitOf !== undefined && status < 400) return 'cache_hit';
  if (failure !== undefined) return `failed:${failure}`;
  if (status === 499) return 'client_gone';
  return status < 400 ? 'completed' : `failed:${status}`;
}

/** The receipt of a charged request (unsigned). */
export function buildReceipt(f: ReceiptFacts): Receipt {
  return {
    version: 1,
    request_id: f.requestId,
    account_id: f.accountId,
    key_id: f.keyId,
    model: f.model.id,
    route: { endpoint: f.endpoint, provider: f.provider },
    price_version: f.charge.priceVersion ?? f.model.priceVersion,
    cost_details: f.charge.lines ?? [],
    cost_usd: formatUsd(f.charge.cost),
    charged_usd: formatUsd(f.charge.charged),
    absorbed_usd: formatUsd(f.charge.absorbed),
    token_source: f.tokenSource,
    outcome: outcomeOf(f.status, f.failure, f.cacheHitOf),
    // Only on hits, so the receipts of every other request keep their exact text.
    ...(f.cacheHitOf !== undefined ? { cache_hit_of: f.cacheHitOf } : {}),
    time: f.settledAt.toISOString(),
    prev_ledger_hash: f.charge.prevHash ?? null,
    ledger_hash: f.charge.hash ?? null,
  };
}
