import type { Collection } from 'mongodb';
import type { ModelDoc } from './model-types.js';
import type { ModelInput, SeedModel } from './model-schema.js';

/** Builds the stored document for an operator's model input. */
function toDoc(id: string, input: ModelInput, now: Date): ModelDoc {
  return {
    _id: id,
    name: input.name,
    kind: input.kind,
    provider: input.provider,
    upstream_model: input.upstream_model,
    pricing: input.pricing,
    capabilities: input.capabilities,
    context_length: input.context_length,
    max_output_tokens: input.max_output_tokens,
    free_tier: input.free_tier,
    created: input.created ?? Math.floor(now.getTime() / 1000),
    owned_by: input.owned_by ?? id.split('/')[0] ?? 'farebox',
    retired: false,
    updated_at: now,
  };
}

/** Catalog persistence in MongoDB. */
export class CatalogRepository {
  constructor(private readonly models: Collection<ModelDoc>) {}

  /** Every model that is not retired. */
  listActive(): Promise<ModelDoc[]> {
    return this.models.find({ retired: false }).sort({ _id: 1 }).toArray();
  }

  /** Creates or replaces one entry; returns the stored document. */
  async upsert(id: string, input: ModelInput): Promise<ModelDoc> {
    const doc = toDoc(id, input, new Date());
    await this.models.replaceOne({ _id: id }, doc, { upsert: true });
    return doc;
  }

  /** Marks an entry retired; false if there was no such active entry. */
  async retire(id: string): Promise<boolean> {
    const result = await this.models.updateOne({ _id: id, retired: false }, { $set: { retired: true, updated_at: new Date() } });
    return result.modifiedCount === 1;
  }

  /**
   * Loads the seed file: inserts entries that are missing and refreshes the ones it owns,
   * without resurrecting entries an operator retired.
   */
  async sync(seed: readonly SeedModel[]): Promise<number> {
    const now = new Date();
    const ops = seed.map((m) => {
      const { retired: _retired, ...fields } = toDoc(m.id, m, now);
      return { updateOne: { filter: { _id: m.id }, update: { $set: fields, $setOnInsert: { retired: false } }, upsert: true } };
    });
    if (ops.length === 0) return 0;
    const result = await this.models.bulkWrite(ops, { ordered: false });
    return result.upsertedCount + result.modifiedCount;
  }
}
