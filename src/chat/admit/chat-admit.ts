import type { KeyDoc } from '../../accounts/index.js';
import type { AdmissionTicket, DeferredRate } from '../../admission/index.js';
import type { AdmittedRoute, FrontHoldInputs } from './admitted-route.js';
import type { ChatServiceDeps } from '../chat-service-deps.js';
import type { CompletionMeta } from '../wire/chat-wire.js';
import { chatWorstCase, holdLinesWire } from './chat-worst-case.js';
import { andThen, type MaybePromise } from '../../platform/util/index.js';

export type { AdmittedRoute, FrontHoldInputs, WebSearchTool } from './admitted-route.js';

/**
 * A validated chat request that admission let in: it holds money until settled and may run on
 * any of its routes. What differs per route (body, prices, provider, hold) lives in the route.
 */
export interface AdmittedRequest {
  readonly requestId: string;
  /** The completion's id and creation time; `model` is the first route's until one answers. */
  readonly meta: CompletionMeta;
  readonly ticket: AdmissionTicket;
  /** Every route in the order they are tried (at least one). */
  readonly routes: readonly AdmittedRoute[];
}

/**
 * The admitted request as it runs on one route: the route (its body as sent upstream, its
 * catalog entry and prices, its provider, its hold), plus the request's id, the completion
 * meta naming the route, and a ticket that charges at the route's prices.
 */
export interface AdmittedChat extends AdmittedRoute {
  readonly requestId: string;
  readonly meta: CompletionMeta;
  readonly ticket: AdmissionTicket;
  /** Told when the upstream's first byte arrives (the end of failover for this request). */
  readonly firstByte?: () => void;
}

/** `chatcmpl-…` id derived from the request id, so responses and logs correlate. */
export function completionId(requestId: string): string {
  return `chatcmpl-${requestId.startsWith('req_') ? requestId.slice(4) : requestId}`;
}

/**
 * Validates, resolves the model (and the request's fallback models) and their routes, and
 * admits the request with a hold of its worst-case cost over every route it may take. Order
 * (DESIGN §4.4): body → model (404/400) → allowlist and free tier (403) → routes whose
 * provider can serve (503 when none) → estimate per route → caps (403) → balance (402) →
 * stream slot (429). The
 * estimate comes after every cheap refusal and is linear in the request's size. Nothing is
 * held when any step before admission fails. A pending RPM check (`rate`) runs inside
 * admission's script; when an earlier step refuses, the caller runs it (see DeferredRate).
 *
 * Most requests are admitted at once, from a slice this process holds, with nothing to wait
 * for: the admitted request comes at once then, else a promise. A refusal may be thrown at
 * once, so the caller calls this inside its own async function.
 */
export function admitChat(
  deps: ChatServiceDeps,
  key: KeyDoc,
  requestId: string,
  rawBody: unknown,
  rate?: DeferredRate,
  holdInputs?: (providerId: string) => FrontHoldInputs,
): MaybePromise<AdmittedRequest> {
  return andThen(chatWorstCase(deps, key, rawBody, holdInputs), ({ requested, routes, worst }) => {
    // Tokens per minute count the input held plus the output limit sent upstream (as OpenAI counts max_tokens).
    const tokens = worst.hold.promptTokens + worst.hold.completionTokens;
    const admitted = deps.admission.admit({ requestId, key, model: worst.model, authorized: worst.authorized, estimate: worst.hold.estimate, fit: worst.hold.fit, worstLines: () => holdLinesWire(worst), stream: requested.stream === true, rate, tokens });
    return andThen(admitted, (ticket) => {
      const meta = { id: completionId(requestId), created: Math.floor(deps.clock().getTime() / 1000), model: (routes[0] as AdmittedRoute).entryId };
      return { requestId, meta, ticket, routes };
    });
  });
}

