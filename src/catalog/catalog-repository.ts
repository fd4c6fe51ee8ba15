import type { Collection } from 'mongodb';
import { GatewayError } from '../platform/errors/index.js';
import { aliasCollisions } from './aliases.js';
import type { ModelDoc, RouteDoc } from './model-types.js';
import type { ModelInput, SeedModel } from './model-schema.js';

/** The routes of an input in their stored form; the schema makes sure there is at least one. */
function routesOf(input: ModelInput): RouteDoc[] {
  if (input.routes !== undefined) {
    return input.routes.map((r) => ({ provider: r.provider, upstream_model: r.upstream_model, ...(r.pricing !== undefined ? { pricing: r.pricing } : {}), ...(r.prefill !== undefined ? { prefill: r.prefill } : {}) }));
  }
  return [{ provider: input.provider ?? '', upstream_model: input.upstream_model ?? '' }];
}

/** Builds the stored document for an operator's model input. */
function toDoc(id: string, input: ModelInput, now: Date): ModelDoc {
  const routes = routesOf(input);
  const first = routes[0] ?? { provider: '', upstream_model: '' };
  return {
    _id: id,
    name: input.name,
    kind: input.kind,
    provider: first.provider,
    upstream_model: first.upstream_model,
    ...(input.routes !== undefined ? { routes } : {}),
    ...(input.aliases !== undefined && input.aliases.length > 0 ? { aliases: [...new Set(input.aliases)] } : {}),
    pricing: input.pricing,
    capabilities: input.capabilities,
    context_length: input.context_length,
    max_output_tokens: input.max_output_tokens,
    ...(input.tokenizer !== undefined ? { tokenizer: input.tokenizer } : {}),
    ...(input.max_web_searches != null ? { max_web_searches: input.max_web_searches } : {}),
    free_tier: input.free_tier,
    ...(input.dimensions === undefined ? {} : { dimensions: input.dimensions }),
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

  /**
   * A cheap stand-in for the whole catalog: how many entries there are (retired ones included)
   * and when the latest was written. Every write through this repository moves it, so a
   * process can poll it and read the entries only when it moved.
   */
  async fingerprint(): Promise<string> {
    const [row] = await this.models.aggregate<{ n: number; last: Date | null }>([{ $group: { _id: null, n: { $sum: 1 }, last: { $max: '$updated_at' } } }]).toArray();
    return row === undefined ? 'empty' : `${row.n}:${row.last instanceof Date ? row.last.getTime() : String(row.last)}`;
  }

  /**
   * Creates or replaces one entry; returns the stored document.
   * @throws GatewayError `invalid_request` when an id or alias would collide with another entry's.
   */
  async upsert(id: string, input: ModelInput): Promise<ModelDoc> {
    const doc = toDoc(id, input, new Date());
    const others = (await this.listActive()).filter((d) => d._id !== id);
    const clash = aliasCollisions([...others, doc])[0];
    if (clash !== undefined) throw new GatewayError('invalid_request', clash, { param: 'aliases' });
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
    const seeded = new Set(seed.map((m) => m.id));
    const kept = (await this.listActive()).filter((d) => !seeded.has(d._id));
    const clashes = aliasCollisions([...kept, ...seed.map((m) => toDoc(m.id, m, now))]);
    if (clashes.length > 0) throw new Error(`Catalog aliases collide:\n  - ${clashes.join('\n  - ')}`);
    const ops = seed.map((m) => {
      const { retired: _retired, ...fields } = toDoc(m.id, m, now);
      return { updateOne: { filter: { _id: m.id }, update: { $set: fields, $setOnInsert: { retired: false } }, upsert: true } };
    });
    if (ops.length === 0) return 0;
    const result = await this.models.bulkWrite(ops, { ordered: false });
    return result.upsertedCount + result.modifiedCount;
  }
}
