import { toCatalogModel } from '../catalog/catalog-cache.js';
import type { CatalogModel } from '../catalog/model-types.js';
import type { JobModel } from './job-types.js';

/** The part of a catalog entry a job carries (provider, upstream name, prices). */
export function jobModelOf(model: CatalogModel): JobModel {
  const { doc } = model;
  return { id: model.id, kind: doc.kind, provider: doc.provider, upstreamModel: doc.upstream_model, pricing: { ...doc.pricing } };
}

/**
 * Rebuilds a priced catalog model from a job's snapshot, so the worker meters with the same
 * `costOf` and unit rules as everything else and at the prices the request was admitted with.
 * Fields a job does not carry get neutral values; pricing reads only the prices.
 */
export function pricedModel(model: JobModel): CatalogModel {
  return toCatalogModel({
    _id: model.id,
    name: model.id,
    kind: model.kind,
    provider: model.provider,
    upstream_model: model.upstreamModel,
    pricing: model.pricing,
    capabilities: [],
    context_length: null,
    max_output_tokens: null,
    free_tier: false,
    created: 0,
    owned_by: '',
    retired: false,
    updated_at: new Date(0),
  });
}
