import { unitPrice } from '../../billing/index.js';
import type { CatalogModel, CatalogRoute } from '../../catalog/index.js';
import { GatewayError } from '../../platform/errors/index.js';
import { andThen, type MaybePromise } from '../../platform/util/index.js';
import type { Authorization } from '../../admission/index.js';
import type { ChatCapability, ChatRequestBody } from '../../providers/index.js';
import { estimateChatCost, requestedOutputLimit, type ChatEstimate } from './chat-estimate.js';
import { promptTokenCount, type HoldInputs } from './prompt-bound.js';
import type { RouteTarget } from '../../routing/index.js';
import type { RouteCandidate } from './route-candidates.js';

/** One route an admitted request may take, ready to call: its entry as the route prices it. */
export interface AdmittedRoute extends RouteTarget {
  /** The catalog id this route serves (the answer's `model`). */
  readonly entryId: string;
  readonly route: CatalogRoute;
  /** The entry as this route serves and prices it. */
  readonly model: CatalogModel;
  readonly providerId: string;
  readonly chat: ChatCapability;
  /** The body this route gets: one output limit, in the field its provider honours. */
  readonly body: ChatRequestBody;
  readonly hold: ChatEstimate;
  readonly promptTokens: () => Promise<number>;
  /** The key's authorization for the entry (admission takes it instead of asking again). */
  readonly authorized?: Authorization;
  /** The route continues a partial answer given as a trailing assistant message (see continuation). */
  readonly prefill?: boolean;
}

/** A server-side web search tool a request declares, and its own cap on uses. */
export interface WebSearchTool {
  readonly param: string;
  readonly maxUses: number | undefined;
}

/** Inputs a front door saw that its chat form does not carry. */
export interface FrontHoldInputs extends HoldInputs {
  readonly webSearchTools?: readonly WebSearchTool[];
}

/**
 * Searches a request may run: each search tool's own `max_uses`, else the most the catalog
 * lets one request make; a tool with neither cannot be held, so the request is refused.
 */
function allowedSearches(model: CatalogModel, tools: readonly WebSearchTool[]): number {
  let total = 0;
  for (const tool of tools) {
    const uses = tool.maxUses ?? model.doc.max_web_searches ?? undefined;
    if (uses === undefined) throw new GatewayError('invalid_request', `Set max_uses on ${tool.param}: ${model.id} declares no most searches per request to hold`, { param: `${tool.param}.max_uses` });
    total += uses;
  }
  return total;
}

/**
 * The body with exactly one output limit, the one the hold counts, in the field the upstream
 * honours: a client's larger second limit is never forwarded, and a request without one gets
 * the model's, so no upstream default can exceed what was held.
 */
function withHeldLimit(body: ChatRequestBody, model: CatalogModel, chat: ChatCapability): ChatRequestBody {
  const { max_tokens: _tokens, max_completion_tokens: _completion, ...rest } = body;
  return { ...rest, [chat.outputLimitField ?? 'max_tokens']: requestedOutputLimit(body, model) };
}

/** Refuses a request that would report a unit the model has no price for (never billed at $0). */
function requirePriced(model: CatalogModel, searches: number): void {
  if (searches > 0 && unitPrice(model, 'web_search') === undefined) {
    throw new GatewayError('service_unavailable', `${model.id} cannot serve web search right now`);
  }
}

/** Prepares one route: its body with the held limit, and its own worst-case hold (a promise only for a long prompt). */
export function admittedRoute(candidate: RouteCandidate, requested: ChatRequestBody, holdInputs?: (providerId: string) => FrontHoldInputs): MaybePromise<AdmittedRoute> {
  const { route, chat } = candidate;
  const model = route.model;
  const inputs = holdInputs?.(route.provider) ?? {};
  const webSearches = allowedSearches(model, inputs.webSearchTools ?? []);
  requirePriced(model, webSearches);
  const body = withHeldLimit(requested, model, chat);
  return andThen(estimateChatCost(body, model, chat.outputLimit?.(body), { ...inputs, webSearches }), (hold) => {
    let counted: Promise<number> | undefined;
    const promptTokens = (): Promise<number> => (counted ??= inputs.unboundedParam !== undefined ? Promise.resolve(hold.promptTokens) : promptTokenCount(body, model));
    return { entryId: candidate.entry.id, key: route.key, upstreamModel: route.upstreamModel, route, model, providerId: route.provider, chat, body, hold, promptTokens, authorized: candidate.authorized, prefill: candidate.prefill };
  });
}
