import { type Collection, type Document, MongoServerError } from 'mongodb';
import { toUsdNumber } from '../../billing/index.js';
import { GatewayError } from '../../platform/errors/index.js';
import { createdWithin, type TimeRange } from './record-filters.js';
import type { LedgerCollections } from '../ledger-collection.js';

/** Spend and volume of one model on one UTC day. */
export interface UsageRow {
  date: string;
  model: string | null;
  requests: number;
  cost_usd: number;
  input_tokens: number;
  output_tokens: number;
}

const sumOf = (fields: string[]) => ({ $sum: { $add: fields.map((f) => ({ $ifNull: [`$units.${f}`, 0] })) } });

/** A group's integer total as it comes back (int32, int64 as bigint, or double). */
function toInt(value: unknown): number {
  return typeof value === 'bigint' ? Number(value) : typeof value === 'number' ? value : 0;
}

/** How one source's documents are summed: which documents count, and their token fields. */
interface UsageSums {
  readonly match: Document;
  readonly input: Document;
  readonly output: Document;
}

/**
 * Longest MongoDB works on one usage report. Below the client's reply limit, so the server
 * stops the work itself (a report over years of a busy account) instead of running on after
 * the client gave up, beside the ledger's commits.
 */
export const USAGE_QUERY_MS = 8_000;

/** MongoDB's code for an operation that ran past its `maxTimeMS`. */
const MAX_TIME_EXPIRED = 50;

function tooSlow(err: unknown): never {
  if (err instanceof MongoServerError && err.code === MAX_TIME_EXPIRED) {
    throw new GatewayError('service_unavailable', `The usage report took longer than ${USAGE_QUERY_MS / 1000} s; ask for a shorter time range.`, { retryAfterSeconds: 1, cause: err });
  }
  throw err;
}

/** Groups one collection's documents per UTC day and model into usage rows, in MongoDB. */
export async function dailyUsage(collection: Pick<Collection, 'aggregate'>, sums: UsageSums): Promise<UsageRow[]> {
  const pipeline = [
    { $match: sums.match },
    {
      $group: {
        _id: { date: { $dateToString: { format: '%Y-%m-%d', date: '$created_at', timezone: 'UTC' } }, model: '$model' },
        requests: { $sum: 1 },
        cost: { $sum: '$cost' },
        input: sums.input,
        output: sums.output,
      },
    },
    { $sort: { '_id.date': 1, '_id.model': 1 } },
  ];
  const groups = await collection
    .aggregate<{ _id: { date: string; model: string | null }; requests: unknown; cost: unknown; input: unknown; output: unknown }>(pipeline, { maxTimeMS: USAGE_QUERY_MS })
    .toArray()
    .catch(tooSlow);
  return groups.map((g) => ({
    date: g._id.date,
    model: g._id.model,
    requests: toInt(g.requests),
    cost_usd: toUsdNumber(typeof g.cost === 'bigint' ? g.cost : BigInt(toInt(g.cost))),
    input_tokens: toInt(g.input),
    output_tokens: toInt(g.output),
  }));
}

/**
 * Usage per UTC day and model, from the ledger's charges (the money of record): requests
 * billed, their metered cost and the tokens they billed. One aggregation, grouped in MongoDB.
 */
export function usageByDay(c: LedgerCollections, range: TimeRange, accountId?: string): Promise<UsageRow[]> {
  const match = { kind: 'charge', ...(accountId === undefined ? {} : { account_id: accountId }), ...createdWithin(range) };
  return dailyUsage(c.ledger, { match, input: sumOf(['prompt', 'text_input', 'image_input']), output: sumOf(['completion', 'image_output']) });
}
