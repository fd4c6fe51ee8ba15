import type { AdmissionTicket } from '../../admission/index.js';
import type { ChargeOutcome } from '../../ledger/index.js';
import type { AttemptSink } from '../../routing/index.js';
import type { AdmittedChat, AdmittedRequest, AdmittedRoute } from '../admit/chat-admit.js';
import type { ChatServiceDeps } from '../chat-service-deps.js';

/**
 * The ticket a route sees: charges at the route's prices; releasing is left to the runner's
 * caller. A class for the reason given at the recording ticket: one shape, built on the fast path.
 */
class AttemptTicket implements AdmissionTicket {
  readonly requestId: string;

  constructor(
    private readonly inner: AdmissionTicket,
    private readonly route: AdmittedRoute,
  ) {
    this.requestId = inner.requestId;
  }

  /** Bound when read (a continued stream grows its hold), not for every attempt. */
  get grow(): ((extra: bigint) => Promise<boolean>) | undefined {
    return this.inner.grow?.bind(this.inner);
  }

  get held(): bigint {
    return this.inner.held;
  }

  settle(...[cost, units, , detail]: Parameters<AdmissionTicket['settle']>): Promise<ChargeOutcome> {
    return this.inner.settle(cost, units, this.route.model, detail);
  }

  /**
   * The request's hold must outlive a failed route, since the next one may answer; the front
   * runner releases it when the request ends (a no-op once settled).
   */
  async release(): Promise<void> {}
}

/** The admitted request on one route: the route, with the request's id, meta and a ticket at the route's prices. */
export function attemptOn(request: AdmittedRequest, route: AdmittedRoute, firstByte: () => void): AdmittedChat {
  const meta = { ...request.meta, model: route.entryId, provider: route.providerId };
  return { ...route, requestId: request.requestId, meta, ticket: new AttemptTicket(request.ticket, route), firstByte };
}

/** The request's record draft as an attempt sink (looked up per line, as the draft may come late). */
export function recordAttempts(deps: Pick<ChatServiceDeps, 'requests'>, requestId: string): AttemptSink {
  return {
    attempted: (attempt) => deps.requests?.draft(requestId)?.attempted(attempt),
    answeredBy: (model, provider) => deps.requests?.draft(requestId)?.answeredBy(model, provider),
  };
}
