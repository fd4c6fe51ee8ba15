import { type CatalogModel, modelRoutes, toCatalogModel } from '../catalog/index.js';
import type { JobModel } from './job-types.js';

/** The part of a catalog entry a job carries (provider, upstream name, prices). */
export function jobModelOf(model: CatalogModel): JobModel {
  const { doc } = model;
  const routes = modelRoutes(model);
  const out: JobModel = { id: model.id, kind: doc.kind, provider: doc.provider, upstreamModel: doc.upstream_model, pricing: { ...doc.pricing } };
  if (routes.length > 1) out.routes = routes.map((r) => ({ provider: r.provider, upstreamModel: r.upstreamModel, pricing: { ...r.model.doc.pricing } }));
  return out;
}

/** The job's model as one of its routes serves and prices it (the model itself without routes). */
export function jobRouteModel(model: JobModel, index: number | undefined): JobModel {
  const route = index === undefined ? undefined : model.routes?.[index];
  if (route === undefined) return model;
  const { routes: _routes, ...rest } = model;
  return { ...rest, provider: route.provider, upstreamModel: route.upstreamModel, pricing: route.pricing };
}

/** The routes a job may take, in order: its model's, or the model itself. */
export function jobRoutes(model: JobModel): JobModel[] {
  return model.routes === undefined ? [model] : model.routes.map((_, i) => jobRouteModel(model, i));
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
