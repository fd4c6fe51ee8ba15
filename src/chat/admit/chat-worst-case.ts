import { attoUsd, type CostLineWire, formatUsd } from '../../billing/index.js';
import { type CatalogModel, resolveModel } from '../../catalog/index.js';
import type { KeyDoc } from '../../accounts/index.js';
import type { ChatRequestBody } from '../../providers/index.js';
import { validate } from '../../platform/validation/index.js';
import { andThen, type MaybePromise } from '../../platform/util/index.js';
import { admittedRoute, type AdmittedRoute, type FrontHoldInputs } from './admitted-route.js';
import { holdMargin, holdParts } from './chat-estimate.js';
import { chatRequestSchema, toChatRequestBody } from '../wire/chat-schema.js';
import type { ChatServiceDeps } from '../chat-service-deps.js';
import { type RouteCandidate, routeCandidates } from './route-candidates.js';
import { splitRouting } from './routing-request.js';

/** A chat request up to its worst case: what admission holds and what a quote shows. */
export interface ChatWorstCase {
  /** The request as the client sent it, routing fields split off. */
  readonly requested: ChatRequestBody;
  /** The catalog entry the request names. */
  readonly model: CatalogModel;
  /** Every route the request may take, in the order they are tried. */
  readonly routes: readonly AdmittedRoute[];
  /** The route whose hold is largest: the hold placed is its. */
  readonly worst: AdmittedRoute;
}

/**
 * Validates, resolves the model, checks the key may use it, finds the routes that can serve
 * it and bounds each one's cost (DESIGN §4.4's steps before the balance). Admission and
 * `POST /v1/quote` both call this, so a quote is always the hold admission would place. At
 * once when nothing had to wait (most requests), else a promise; a refusal may be thrown at
 * once, so callers call it inside their own async function.
 */
export function chatWorstCase(deps: ChatServiceDeps, key: KeyDoc, rawBody: unknown, holdInputs?: (providerId: string) => FrontHoldInputs): MaybePromise<ChatWorstCase> {
  const { body: requested, routing } = splitRouting(toChatRequestBody(validate(chatRequestSchema, rawBody)));
  const model = resolveModel(deps.catalog, requested.model, 'chat');
  // Authorizes each model the request names, once (admission takes the proof).
  return andThen(routeCandidates(deps, key, model, routing, deps.routeHealth), (candidates) =>
    andThen(admittedRoutes(candidates, requested, holdInputs), (routes) => {
      // The hold is the worst case over every route the request may take.
      const worst = routes.reduce((a, b) => (b.hold.estimate > a.hold.estimate ? b : a));
      return { requested, model, routes, worst };
    }),
  );
}

/** Each candidate prepared in turn (see admittedRoute), from `from` on, after `routes`. */
function admittedRoutes(candidates: readonly RouteCandidate[], requested: ChatRequestBody, holdInputs: ((providerId: string) => FrontHoldInputs) | undefined, from = 0, routes: AdmittedRoute[] = []): MaybePromise<AdmittedRoute[]> {
  for (let i = from; i < candidates.length; i++) {
    const route = admittedRoute(candidates[i] as RouteCandidate, requested, holdInputs);
    if (route instanceof Promise) return route.then((r) => admittedRoutes(candidates, requested, holdInputs, i + 1, [...routes, r]));
    routes.push(route);
  }
  return routes;
}

/**
 * The lines of a route's hold, priced as the hold prices them (input at the dearest input
 * price, output at the dearest output price), plus the rounding margin, so they sum to it.
 */
export function holdLinesWire(route: AdmittedRoute): CostLineWire[] {
  const parts = holdParts(route.model, route.hold);
  const lines: CostLineWire[] = parts
    .filter((p) => p.amount > 0n)
    .map((p) => ({ component: p.component, units: p.units, unit_price_usd: attoUsd(p.unitPrice), amount_usd: formatUsd(p.amount) }));
  const margin = holdMargin(parts);
  if (margin > 0n) lines.push({ component: 'rounding_margin', units: Number(margin), unit_price_usd: '0.000000001', amount_usd: formatUsd(margin) });
  return lines;
}

