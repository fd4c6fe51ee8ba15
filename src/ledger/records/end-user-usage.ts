import { toUsdNumber } from '../../billing/index.js';
import { createdWithin, type TimeRange } from './record-filters.js';
import type { UsageRow } from './usage-query.js';
import type { RecordCollections } from './record-collection.js';

/** A group's integer total as it comes back (int32, int64 as bigint, or double). */
function toInt(value: unknown): number {
  return typeof value === 'bigint' ? Number(value) : typeof value === 'number' ? value : 0;
}

/**
 * Usage per UTC day and model of one end user, from the request records: the ledger's charges
 * do not carry the end user (only its spend buckets do, by digest), while every record names
 * the end user its request named. Counts charged requests only (those with billed lines), so
 * the rows match the ledger's for the same requests; records expire, so this reaches back as
 * far as records are kept.
 */
export async function usageOfEndUser(c: RecordCollections, range: TimeRange, endUser: string, accountId?: string): Promise<UsageRow[]> {
  const match = {
    ...(accountId === undefined ? {} : { account_id: accountId }),
    end_user: endUser,
    cost_details: { $exists: true },
    ...createdWithin(range),
  };
  const groups = await c.requestRecords
    .aggregate<{ _id: { date: string; model: string | null }; requests: unknown; cost: unknown; input: unknown; output: unknown }>([
      { $match: match },
      {
        $group: {
          _id: { date: { $dateToString: { format: '%Y-%m-%d', date: '$created_at', timezone: 'UTC' } }, model: '$model' },
          requests: { $sum: 1 },
          cost: { $sum: '$cost' },
          input: { $sum: { $ifNull: ['$usage.input_tokens', 0] } },
          output: { $sum: { $ifNull: ['$usage.output_tokens', 0] } },
        },
      },
      { $sort: { '_id.date': 1, '_id.model': 1 } },
    ])
    .toArray();
  return groups.map((g) => ({
    date: g._id.date,
    model: g._id.model,
    requests: toInt(g.requests),
    cost_usd: toUsdNumber(typeof g.cost === 'bigint' ? g.cost : BigInt(toInt(g.cost))),
    input_tokens: toInt(g.input),
    output_tokens: toInt(g.output),
  }));
}
