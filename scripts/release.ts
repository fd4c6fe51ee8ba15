import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { CatalogRepository } from '../src/catalog/catalog-repository.js';
import { seedModelSchema } from '../src/catalog/model-schema.js';
import { collections, ensureIndexes } from '../src/db/collections.js';
import { connectMongo } from '../src/db/mongo.js';
import { boot } from '../src/runtime/boot.js';

/**
 * The release step (Procfile `release`): creates indexes and syncs the seed catalog.
 * Idempotent, so it runs on every deploy.
 */
export async function release(): Promise<void> {
  const { config, log } = boot('release');
  const mongo = await connectMongo(config.mongoUri, config.mongoDb);
  try {
    const c = collections(mongo.db);
    await ensureIndexes(c);
    const seed = z.array(seedModelSchema).parse(JSON.parse(await readFile(config.catalogFile, 'utf8')));
    const changed = await new CatalogRepository(c.models).sync(seed);
    log.info({ models: seed.length, changed }, 'release done: indexes ensured, catalog synced');
  } finally {
    await mongo.close();
  }
}

await release();
