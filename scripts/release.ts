import { connectWritable } from '../src/platform/db/index.js';
import { prepareDatabase } from '../src/store/index.js';
import { boot } from '../src/platform/runtime/index.js';

/** The release step (Procfile `release`): collections, indexes and the seed catalog. */
export async function release(): Promise<void> {
  const { config, log } = boot('release');
  // Index builds on large collections may take minutes before they answer.
  const mongo = await connectWritable(config.mongoUri, config.mongoDb, { log, replyTimeoutMs: 0 });
  try {
    const result = await prepareDatabase(mongo.db, config.catalogFile, { requestRecordRetentionDays: config.requestRecordRetentionDays });
    log.info(result, 'release done: indexes ensured, catalog synced');
  } finally {
    await mongo.close();
  }
}

await release();
