import type { AdmissionTicket } from '../../admission/index.js';
import type { AttemptSink } from '../../routing/index.js';
import type { AdmittedChat, AdmittedRequest, AdmittedRoute } from '../admit/chat-admit.js';
import type { ChatServiceDeps } from '../chat-service-deps.js';

/** The ticket a route sees: charges at the route's prices; releasing is left to the runner's caller. */
function attemptTicket(ticket: AdmissionTicket, route: AdmittedRoute): AdmissionTicket {
  return {
    requestId: ticket.requestId,
    get held() {
      return ticket.held;
    },
    ...(ticket.grow === undefined ? {} : { grow: (extra: bigint) => ticket.grow?.(extra) ?? Promise.resolve(false) }),
    settle: (cost, units, _priced, detail) => ticket.settle(cost, units, route.model, detail),
    // The request's hold must outlive a failed route, since the next one may answer; the
    // front runner releases it when the request ends (a no-op once settled).
    release: async () => undefined,
  };
}

/** The admitted request on one route: the route, with the request's id, meta and a ticket at the route's prices. */
export function attemptOn(request: AdmittedRequest, route: AdmittedRoute, firstByte: () => void): AdmittedChat {
  const meta = { ...request.meta, model: route.entryId, provider: route.providerId };
  return { ...route, requestId: request.requestId, meta, ticket: attemptTicket(request.ticket, route), firstByte };
}

/** The request's record draft as an attempt sink (looked up per line, as the draft may come late). */
export function recordAttempts(deps: Pick<ChatServiceDeps, 'requests'>, requestId: string): AttemptSink {
  return {
    attempted: (attempt) => deps.requests?.draft(requestId)?.attempted(attempt),
    answeredBy: (model, provider) => deps.requests?.draft(requestId)?.answeredBy(model, provider),
  };
}
