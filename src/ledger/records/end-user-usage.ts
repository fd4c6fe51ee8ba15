import { createdWithin, type TimeRange } from './record-filters.js';
import { dailyUsage, type UsageRow } from './usage-query.js';
import type { RecordCollections } from './record-collection.js';

/**
 * Usage per UTC day and model of one end user, from the request records: the ledger's charges
 * do not carry the end user (only its spend buckets do, by digest), while every record names
 * the end user its request named. Counts charged requests only (those with billed lines), so
 * the rows match the ledger's for the same requests; records expire, so this reaches back as
 * far as records are kept.
 */
export function usageOfEndUser(c: RecordCollections, range: TimeRange, endUser: string, accountId?: string): Promise<UsageRow[]> {
  const match = {
    ...(accountId === undefined ? {} : { account_id: accountId }),
    end_user: endUser,
    cost_details: { $exists: true },
    ...createdWithin(range),
  };
  const tokens = (field: string) => ({ $sum: { $ifNull: [`$usage.${field}`, 0] } });
  return dailyUsage(c.requestRecords, { match, input: tokens('input_tokens'), output: tokens('output_tokens') });
}
