import { readFile } from 'node:fs/promises';
import type { Db } from 'mongodb';
import { z } from 'zod';
import { moveLegacySpend } from '../accounts/index.js';
import { CatalogRepository, seedModelSchema } from '../catalog/index.js';
import { collections, ensureIndexes, type IndexOptions } from './collections.js';

/**
 * What the release step does: collections and indexes, spend buckets of an older release moved
 * to where charges now write them, then the seed catalog. Idempotent, so it runs on every
 * deploy (and before every test database is used).
 */
export async function prepareDatabase(db: Db, catalogFile: string, options: IndexOptions = {}): Promise<{ models: number; changed: number; spendMoved: number }> {
  await ensureIndexes(db, options);
  const c = collections(db);
  const spendMoved = await moveLegacySpend(db, c);
  const seed = z.array(seedModelSchema).parse(JSON.parse(await readFile(catalogFile, 'utf8')));
  const changed = await new CatalogRepository(c.models).sync(seed);
  return { models: seed.length, changed, spendMoved };
}
