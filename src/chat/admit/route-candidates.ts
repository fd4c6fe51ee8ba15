import { type CatalogModel, type CatalogRoute, modelRoutes, resolveModel } from '../../catalog/index.js';
import { GatewayError } from '../../platform/errors/index.js';
import type { MaybePromise } from '../../platform/util/index.js';
import type { KeyDoc } from '../../accounts/index.js';
import type { Authorization } from '../../admission/index.js';
import type { ChatCapability } from '../../providers/index.js';
import type { ChatServiceDeps } from '../chat-service-deps.js';
import type { ProviderPreferences, RoutingRequest } from './routing-request.js';

/** One route a request may take: the catalog entry, the route, and its provider's chat. */
export interface RouteCandidate {
  readonly entry: CatalogModel;
  readonly route: CatalogRoute;
  readonly chat: ChatCapability;
  /** The key's authorization for the entry, passed on to admission so it is not asked twice. */
  readonly authorized: Authorization;
  /** The route continues a partial answer given as a trailing assistant message (the route's setting, else its provider's). */
  readonly prefill: boolean;
}

/** Smoothed latencies of routes, for `sort: "latency"`. */
export interface LatencySource {
  latency(routeKey: string): number | undefined;
}

function tokenPrice(route: CatalogRoute): bigint {
  return (route.model.prices.prompt ?? 0n) + (route.model.prices.completion ?? 0n);
}

/** The routes of one entry in the order the preferences ask for (stable otherwise). */
function orderRoutes(routes: readonly CatalogRoute[], prefs: ProviderPreferences, latencies?: LatencySource): readonly CatalogRoute[] {
  if (prefs.only === undefined && prefs.ignore === undefined && prefs.sort === undefined && prefs.order === undefined && prefs.allow_fallbacks === undefined) return routes;
  let kept = routes.filter((r) => (prefs.only === undefined || prefs.only.includes(r.provider)) && !(prefs.ignore ?? []).includes(r.provider));
  if (prefs.sort === 'price') kept = [...kept].sort((a, b) => (tokenPrice(a) < tokenPrice(b) ? -1 : tokenPrice(a) > tokenPrice(b) ? 1 : 0));
  if (prefs.sort === 'latency') kept = [...kept].sort((a, b) => (latencies?.latency(a.key) ?? Infinity) - (latencies?.latency(b.key) ?? Infinity));
  const order = prefs.order ?? [];
  if (order.length > 0) {
    const rank = (r: CatalogRoute): number => (order.includes(r.provider) ? order.indexOf(r.provider) : order.length);
    kept = [...kept].sort((a, b) => rank(a) - rank(b));
    if (prefs.allow_fallbacks === false) kept = kept.filter((r) => order.includes(r.provider));
  } else if (prefs.allow_fallbacks === false) {
    kept = kept.slice(0, 1);
  }
  return kept;
}

/** The chat capability of a route's provider (and its prefill setting), or the refusal saying why it cannot serve. */
function chatOf(deps: Pick<ChatServiceDeps, 'providers'>, provider: string): { chat: ChatCapability; prefill: boolean } | GatewayError {
  try {
    const adapter = deps.providers.get(provider);
    if (adapter.chat === undefined) return new GatewayError('upstream_error', `Provider "${provider}" cannot serve chat models`);
    return { chat: adapter.chat, prefill: adapter.prefill === true };
  } catch (err) {
    return err instanceof GatewayError ? err : new GatewayError('service_unavailable', 'This model is not available right now.');
  }
}

/**
 * Every route a request may take, in the order they are tried: the models in the request's
 * order (the first already resolved), each model authorized once, each model's routes ordered by the
 * provider preferences, keeping only providers that can serve chat now. Every listed model
 * must exist, be a chat model and pass the key's allowlist and free tier. At once for a
 * request naming one model whose authorization is cached (most), else a promise.
 * @throws GatewayError 404/400/403 for a bad listed model; the first route's refusal (503)
 *   when no route can serve.
 */
export function routeCandidates(
  deps: Pick<ChatServiceDeps, 'catalog' | 'admission' | 'providers'>,
  key: KeyDoc,
  primary: CatalogModel,
  routing: RoutingRequest,
  latencies?: LatencySource,
): MaybePromise<RouteCandidate[]> {
  const first = deps.admission.authorize(key, primary);
  if (routing.models.length <= 1 && !(first instanceof Promise)) return candidatesOf(deps, [{ entry: primary, authorized: first }], routing, latencies);
  return authorizedEntries(deps, key, primary, first, routing.models).then((entries) => candidatesOf(deps, entries, routing, latencies));
}

/** A model the request names, with the key's authorization for it. */
interface AuthorizedEntry {
  readonly entry: CatalogModel;
  readonly authorized: Authorization;
}

/** The request's models, each resolved and authorized once, in its order. */
async function authorizedEntries(
  deps: Pick<ChatServiceDeps, 'catalog' | 'admission'>,
  key: KeyDoc,
  primary: CatalogModel,
  first: MaybePromise<Authorization>,
  models: readonly string[],
): Promise<AuthorizedEntry[]> {
  const entries: AuthorizedEntry[] = [{ entry: primary, authorized: await first }];
  for (const [i, id] of models.entries()) {
    if (i === 0) continue;
    let entry: CatalogModel;
    try {
      entry = resolveModel(deps.catalog, id, 'chat');
    } catch (err) {
      throw err instanceof GatewayError ? new GatewayError(err.code, err.message, { param: `models.${i - 1}` }) : err;
    }
    if (entries.some((known) => known.entry.id === entry.id)) continue;
    entries.push({ entry, authorized: await deps.admission.authorize(key, entry) });
  }
  return entries;
}

/** The routes of the authorized entries whose providers can serve chat now, in order. */
function candidatesOf(deps: Pick<ChatServiceDeps, 'providers'>, entries: readonly AuthorizedEntry[], routing: RoutingRequest, latencies?: LatencySource): RouteCandidate[] {
  const candidates: RouteCandidate[] = [];
  let refusal: GatewayError | undefined;
  for (const { entry, authorized } of entries) {
    for (const route of orderRoutes(modelRoutes(entry), routing.provider, latencies)) {
      const served = chatOf(deps, route.provider);
      if (served instanceof GatewayError) refusal ??= served;
      else candidates.push({ entry, route, chat: served.chat, authorized, prefill: route.prefill ?? served.prefill });
    }
  }
  if (candidates.length > 0) return candidates;
  throw refusal ?? new GatewayError('service_unavailable', 'No provider allowed by this request can serve the model right now.');
}
