import type { Collection, Db } from 'mongodb';
import type { ModelDoc } from './model-types.js';

/** The model catalog collection. */
export interface ModelCollections {
  readonly models: Collection<ModelDoc>;
}

/** The model catalog collection of a database (its name lives here only). */
export function modelCollections(db: Db): ModelCollections {
  return { models: db.collection<ModelDoc>('models') };
}
