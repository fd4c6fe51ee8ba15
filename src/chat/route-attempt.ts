import type { AdmissionTicket } from '../limits/admission-types.js';
import { routeKey, type AttemptSink } from '../routing/index.js';
import type { AdmittedChat, AdmittedRoute } from './chat-admit.js';
import type { ChatServiceDeps } from './chat-service-deps.js';

/** The ticket a route sees: charges at the route's prices; releasing is left to the runner's caller. */
function attemptTicket(ticket: AdmissionTicket, route: AdmittedRoute): AdmissionTicket {
  return {
    requestId: ticket.requestId,
    held: ticket.held,
    settle: (cost, units, _priced, detail) => ticket.settle(cost, units, route.model, detail),
    // The request's hold must outlive a failed route, since the next one may answer; the
    // front runner releases it when the request ends (a no-op once settled).
    release: async () => undefined,
  };
}

/** The admitted request as it runs on one route. */
export function onRoute(admitted: AdmittedChat, route: AdmittedRoute, firstByte: () => void): AdmittedChat {
  return {
    ...admitted,
    meta: { ...admitted.meta, model: route.entryId, provider: route.providerId },
    body: route.body,
    model: route.model,
    providerId: route.providerId,
    chat: route.chat,
    hold: route.hold,
    promptTokens: route.promptTokens,
    ticket: attemptTicket(admitted.ticket, route),
    firstByte,
  };
}

/** The routes an admitted request may take, in order (a request admitted with one route: that one). */
export function chatRoutes(admitted: AdmittedChat): readonly AdmittedRoute[] {
  if (admitted.routes !== undefined) return admitted.routes;
  const { model, providerId, chat, body, hold, promptTokens } = admitted;
  const upstreamModel = model.doc.upstream_model;
  const key = routeKey(model.id, providerId, upstreamModel);
  const route = { key, provider: providerId, upstreamModel, model };
  return [{ entryId: admitted.meta.model, key, upstreamModel, route, model, providerId, chat, body, hold, promptTokens }];
}

/** The request's record draft as an attempt sink (looked up per line, as the draft may come late). */
export function recordAttempts(deps: Pick<ChatServiceDeps, 'requests'>, requestId: string): AttemptSink {
  return {
    attempted: (attempt) => deps.requests?.draft(requestId)?.attempted(attempt),
    answeredBy: (model, provider) => deps.requests?.draft(requestId)?.answeredBy(model, provider),
  };
}
