import { attoUsd, type CostLineWire, formatUsd } from '../../billing/index.js';
import { type CatalogModel, resolveModel } from '../../catalog/index.js';
import type { KeyDoc } from '../../accounts/index.js';
import type { ChatRequestBody } from '../../providers/index.js';
import { validate } from '../../platform/validation/index.js';
import { admittedRoute, type AdmittedRoute, type FrontHoldInputs } from './admitted-route.js';
import { holdMargin, holdParts } from './chat-estimate.js';
import { chatRequestSchema, toChatRequestBody } from '../wire/chat-schema.js';
import type { ChatServiceDeps } from '../chat-service-deps.js';
import { routeCandidates } from './route-candidates.js';
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
 * `POST /v1/quote` both call this, so a quote is always the hold admission would place.
 */
export async function chatWorstCase(deps: ChatServiceDeps, key: KeyDoc, rawBody: unknown, holdInputs?: (providerId: string) => FrontHoldInputs): Promise<ChatWorstCase> {
  const { body: requested, routing } = splitRouting(toChatRequestBody(validate(chatRequestSchema, rawBody)));
  const model = resolveModel(deps.catalog, requested.model, 'chat');
  // Authorizes each model the request names, once (admission takes the proof).
  const candidates = await routeCandidates(deps, key, model, routing, deps.routeHealth);
  const routes: AdmittedRoute[] = [];
  for (const candidate of candidates) routes.push(await admittedRoute(candidate, requested, holdInputs));
  // The hold is the worst case over every route the request may take.
  const worst = routes.reduce((a, b) => (b.hold.estimate > a.hold.estimate ? b : a));
  return { requested, model, routes, worst };
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

