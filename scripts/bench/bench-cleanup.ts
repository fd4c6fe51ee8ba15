import { Redis } from 'ioredis';
import { MongoClient } from 'mongodb';
import type { ResolvedServices } from '../services/service-types.js';

/**
 * Removes what the run wrote to stores it did not start (given by `MONGODB_URI` /
 * `REDIS_URL`): the `farebox_bench_<id>` database and every Redis key under the run's prefix.
 * Stores the run started are thrown away whole by `services.stop()`.
 */
export async function dropBenchData(services: ResolvedServices, dbName: string, redisPrefix: string): Promise<void> {
  if (services.sources.mongo === 'env' && dbName.startsWith('farebox_bench_')) {
    const client = new MongoClient(services.mongoUri, { serverSelectionTimeoutMS: 5_000 });
    try {
      await client.connect();
      await client.db(dbName).dropDatabase();
    } finally {
      await client.close();
    }
  }
  if (services.sources.redis === 'env' && redisPrefix.startsWith('farebox_bench_')) {
    const redis = new Redis(services.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await redis.connect();
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${redisPrefix}:*`, 'COUNT', 1_000);
        if (keys.length > 0) await redis.unlink(...keys);
        cursor = next;
      } while (cursor !== '0');
    } finally {
      redis.disconnect();
    }
  }
}
