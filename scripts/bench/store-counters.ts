import { Redis } from 'ioredis';
import { MongoClient } from 'mongodb';

/** Operations the stores served so far (whole server, every client). */
export interface StoreCounters {
  mongo: Record<string, number>;
  redisCommands: number;
}

function numeric(value: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (typeof value !== 'object' || value === null) return out;
  for (const [name, n] of Object.entries(value)) if (typeof n === 'number' || typeof n === 'bigint') out[name] = Number(n);
  return out;
}

/** Reads MongoDB's opcounters and Redis's processed-commands counter. */
export async function readStoreCounters(mongoUri: string, redisUrl: string): Promise<StoreCounters> {
  const mongo = new MongoClient(mongoUri, { serverSelectionTimeoutMS: 5_000 });
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await mongo.connect();
    const status = await mongo.db('admin').command({ serverStatus: 1 });
    await redis.connect();
    const info = await redis.info('stats');
    const match = /total_commands_processed:(\d+)/.exec(info);
    return { mongo: numeric(status.opcounters), redisCommands: Number(match?.[1] ?? 0) };
  } finally {
    redis.disconnect();
    await mongo.close();
  }
}

/** Store operations per request between two readings. */
export function perRequest(before: StoreCounters, after: StoreCounters, requests: number): Record<string, number> {
  const out: Record<string, number> = {};
  const per = (n: number) => Math.round((n / Math.max(1, requests)) * 1000) / 1000;
  for (const [name, value] of Object.entries(after.mongo)) out[`mongo_${name}`] = per(value - (before.mongo[name] ?? 0));
  out.redis_commands = per(after.redisCommands - before.redisCommands);
  return out;
}
