import type { CatalogModel } from './model-types.js';

/** The public shape of a model (`/v1/models`): never which provider serves it. */
export interface PublicModel {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  name: string;
  free_tier: boolean;
  pricing: Record<string, string>;
  capabilities: string[];
  context_length: number | null;
  max_output_tokens: number | null;
  /** Embedding models only: the default vector length. */
  dimensions?: number;
}

/** Projects a catalog entry onto its public fields. */
export function toPublicModel(model: CatalogModel): PublicModel {
  const d = model.doc;
  return {
    id: d._id,
    object: 'model',
    created: d.created,
    owned_by: d.owned_by,
    name: d.name,
    free_tier: d.free_tier,
    pricing: { ...d.pricing } as Record<string, string>,
    capabilities: [...d.capabilities],
    context_length: d.context_length,
    // Older entries predate the field.
    max_output_tokens: d.max_output_tokens ?? null,
    ...(typeof d.dimensions === 'number' ? { dimensions: d.dimensions } : {}),
  };
}
