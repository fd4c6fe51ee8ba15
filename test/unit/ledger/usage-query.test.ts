import { MongoServerError, type Collection } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { dailyUsage, USAGE_QUERY_MS } from '../../../src/ledger/records/usage-query.js';
import { classifyError, GatewayError } from '../../../src/platform/errors/index.js';

const sums = { match: { kind: 'charge' }, input: { $sum: 0 }, output: { $sum: 0 } };

/** A collection whose aggregation answers `outcome` and keeps the options it was given. */
function collection(outcome: () => Promise<unknown[]>): { c: Pick<Collection, 'aggregate'>; options: unknown[] } {
  const options: unknown[] = [];
  const c = {
    aggregate: (_pipeline: unknown, opts: unknown) => {
      options.push(opts);
      return { toArray: outcome };
    },
  } as unknown as Pick<Collection, 'aggregate'>;
  return { c, options };
}

describe('a usage report', () => {
  it('asks MongoDB to stop working on it within its time limit', async () => {
    const { c, options } = collection(async () => [{ _id: { date: '2026-11-28', model: 'm' }, requests: 2, cost: 5n, input: 3, output: 4 }]);
    expect(await dailyUsage(c, sums)).toEqual([{ date: '2026-11-28', model: 'm', requests: 2, cost_usd: 5e-9, input_tokens: 3, output_tokens: 4 }]);
    expect(options).toEqual([{ maxTimeMS: USAGE_QUERY_MS }]);
  });

  it('that MongoDB stopped at the limit is a 503 asking for a shorter range, not a 500', async () => {
    const { c } = collection(async () => {
      throw new MongoServerError({ code: 50, codeName: 'MaxTimeMSExpired', errmsg: 'operation exceeded time limit' });
    });
    const err = await dailyUsage(c, sums).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect(classifyError(err)).toMatchObject({ status: 503, message: expect.stringMatching(/shorter time range/) });
  });
});
