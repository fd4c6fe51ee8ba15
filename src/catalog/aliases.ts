import type { ModelDoc } from './model-types.js';

/**
 * Every way the ids and aliases of these entries clash: an alias equal to a real id (it
 * would shadow it, or be shadowed), or one alias claimed by two entries. Empty when none.
 */
export function aliasCollisions(docs: ReadonlyArray<Pick<ModelDoc, '_id' | 'aliases'>>): string[] {
  const ids = new Set(docs.map((d) => d._id));
  const owner = new Map<string, string>();
  const problems: string[] = [];
  for (const doc of docs) {
    for (const alias of doc.aliases ?? []) {
      if (ids.has(alias)) problems.push(`alias '${alias}' of ${doc._id} is the id of a model`);
      const taken = owner.get(alias);
      if (taken !== undefined && taken !== doc._id) problems.push(`alias '${alias}' is claimed by ${taken} and ${doc._id}`);
      owner.set(alias, doc._id);
    }
  }
  return problems;
}

/** Alias → id for the entries given; a real id always wins over an alias (never shadowed). */
export function aliasIndex(docs: ReadonlyArray<Pick<ModelDoc, '_id' | 'aliases'>>): Map<string, string> {
  const ids = new Set(docs.map((d) => d._id));
  const index = new Map<string, string>();
  for (const doc of docs) {
    for (const alias of doc.aliases ?? []) if (!ids.has(alias) && !index.has(alias)) index.set(alias, doc._id);
  }
  return index;
}
