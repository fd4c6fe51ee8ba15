import { inSpan } from '../platform/tracing/tracing.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { GatewayError } from '../platform/errors/gateway-error.js';
import type { AdmissionTicket } from '../admission/admission-types.js';
import { KeyTrail, withKeyTrail } from '../providers/http/key-trail.js';
import type { AttemptRecord } from '../ledger/records/request-record-types.js';
import { BeforeFirstByteError } from './before-first-byte.js';
import type { AdmittedChat, AdmittedRoute } from './chat-admit.js';
import type { ChatServiceDeps } from './chat-service-deps.js';
import { judgeFailure } from './failover-rules.js';
import type { RouteGate } from './route-health.js';

/** Default most time one request waits out upstream `Retry-After`s. */
const DEFAULT_RETRY_BUDGET_MS = 10_000;

type RunnerDeps = Pick<ChatServiceDeps, 'routeHealth' | 'routeRetryBudgetMs' | 'metrics' | 'requests' | 'log'>;

/** Runs the request on one route; resolves with its answer once the answer is complete. */
export type RouteAttempt<T> = (attempt: AdmittedChat) => Promise<T>;

/** The ticket a route sees: charges at the route's prices; releasing is left to the runner's caller. */
function attemptTicket(ticket: AdmissionTicket, route: AdmittedRoute): AdmissionTicket {
  return {
    requestId: ticket.requestId,
    held: ticket.held,
    settle: (cost, units) => ticket.settle(cost, units, route.model),
    // The request's hold must outlive a failed route, since the next one may answer; the
    // front runner releases it when the request ends (a no-op once settled).
    release: async () => undefined,
  };
}

/** The admitted request as it runs on one route. */
function onRoute(admitted: AdmittedChat, route: AdmittedRoute, firstByte: () => void): AdmittedChat {
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

function singleRoute(admitted: AdmittedChat): AdmittedRoute {
  const { model, providerId, chat, body, hold, promptTokens } = admitted;
  const route = { key: `${model.id}@${providerId}/${model.doc.upstream_model}`, provider: providerId, upstreamModel: model.doc.upstream_model, model };
  return { entryId: admitted.meta.model, route, model, providerId, chat, body, hold, promptTokens };
}

/** One request's walk over its routes: what was tried, and the last failure. */
class Walk<T> {
  last: GatewayError | undefined;
  tried = 0;
  private readonly started = performance.now();

  constructor(
    private readonly deps: RunnerDeps,
    private readonly admitted: AdmittedChat,
    private readonly run: RouteAttempt<T>,
    private readonly signal: AbortSignal,
  ) {}

  private note(route: AdmittedRoute, outcome: AttemptRecord['outcome'], cause: string | null, status: number | null, ms: number, keyEnv: string | null = null): void {
    const attempt: AttemptRecord = { model: route.entryId, provider: route.providerId, upstream_model: route.route.upstreamModel, outcome, cause, status, latency_ms: Math.round(ms) };
    if (keyEnv !== null) attempt.key_env = keyEnv;
    this.deps.requests?.draft(this.admitted.requestId)?.attempted(attempt);
  }

  /** Notes the keys the vendor refused before the request went on with the next (0 ms: the time is the attempt's). */
  private noteRefusedKeys(route: AdmittedRoute, trail: KeyTrail): void {
    for (const key of trail.tries) {
      if (key.refusal === undefined) continue;
      const verdict = judgeFailure(key.refusal);
      this.note(route, 'failed', verdict.cause, verdict.status ?? null, 0, key.env);
    }
  }

  skip(route: AdmittedRoute, reason: string): void {
    this.deps.metrics?.routes.skip(route.route.key, route.providerId, reason);
    this.note(route, 'skipped', reason, null, 0);
  }

  /** Tries one route: its answer, or undefined when it failed over (the failure kept in `last`). */
  async attempt(route: AdmittedRoute, gate: RouteGate): Promise<{ value: T } | undefined> {
    const { deps } = this;
    const key = route.route.key;
    const started = performance.now();
    let answered = false;
    const trail = new KeyTrail();
    const firstByte = (): void => {
      answered = true;
      const ms = performance.now() - started;
      deps.routeHealth?.succeeded(key, ms);
      deps.metrics?.routes.attempt(key, route.providerId, ms / 1000, undefined);
      this.noteRefusedKeys(route, trail);
      this.note(route, 'answered', null, null, ms, trail.last());
      deps.requests?.draft(this.admitted.requestId)?.answeredBy(route.entryId, route.providerId);
    };
    this.tried += 1;
    try {
      const attributes = { 'gen_ai.provider.name': route.providerId, 'gen_ai.request.model': route.route.upstreamModel, 'farebox.attempt': this.tried };
      return { value: await inSpan(`upstream ${route.providerId}`, attributes, () => withKeyTrail(trail, () => this.run(onRoute(this.admitted, route, firstByte))), 'client') };
    } catch (err) {
      if (answered || !(err instanceof BeforeFirstByteError)) {
        if (!answered && gate === 'trial') deps.routeHealth?.abandoned(key);
        throw err;
      }
      const verdict = judgeFailure(err.original);
      const ms = performance.now() - started;
      if (verdict.failover) deps.routeHealth?.failed(key, verdict.retryAfterMs);
      else if (gate === 'trial') deps.routeHealth?.abandoned(key);
      deps.metrics?.routes.attempt(key, route.providerId, ms / 1000, verdict.cause);
      this.noteRefusedKeys(route, trail);
      this.note(route, 'failed', verdict.cause, verdict.status ?? null, ms, trail.last());
      if (!verdict.failover || this.signal.aborted) throw err.original;
      deps.log.info({ request_id: this.admitted.requestId, route: key, cause: verdict.cause }, 'route failed before the first byte; trying the next');
      this.last = err.original;
      return undefined;
    }
  }

  /** Time left of the request's budget for waiting out `Retry-After`, ms. */
  budgetLeft(): number {
    return (this.deps.routeRetryBudgetMs ?? DEFAULT_RETRY_BUDGET_MS) - (performance.now() - this.started);
  }
}

/**
 * Runs an admitted request over its routes in order until one gives its first byte. A route
 * whose breaker is open, or whose `Retry-After` has not passed, is skipped; a failure before
 * the first byte that another route may not share (see judgeFailure) moves on to the next
 * route, uncharged. When every route failed or waits, the routes waiting out `Retry-After`
 * are tried once more if that wait fits in the retry budget. After the first byte nothing is
 * retried: the answer (or its error chunk and usage) is the request's.
 */
export async function runRoutes<T>(deps: RunnerDeps, admitted: AdmittedChat, signal: AbortSignal, run: RouteAttempt<T>): Promise<T> {
  const routes = admitted.routes ?? [singleRoute(admitted)];
  const walk = new Walk(deps, admitted, run, signal);
  const waiting: AdmittedRoute[] = [];
  for (const route of routes) {
    const gate = deps.routeHealth?.gate(route.route.key) ?? 'closed';
    if (gate === 'open' || gate === 'retry_after') {
      walk.skip(route, gate === 'open' ? 'circuit_open' : 'retry_after');
      if (gate === 'retry_after') waiting.push(route);
      continue;
    }
    const done = await walk.attempt(route, gate);
    if (done !== undefined) return done.value;
    if ((deps.routeHealth?.retryAt(route.route.key) ?? 0) > Date.now()) waiting.push(route);
  }
  const retried = await retryWaiting(deps, walk, waiting, signal);
  if (retried !== undefined) return retried.value;
  if (walk.last !== undefined) throw walk.last;
  // Every route was skipped (breaker open, or a Retry-After beyond the budget): rather than
  // refuse on stale health, probe the first route.
  const probe = await walk.attempt(routes[0] as AdmittedRoute, 'closed');
  if (probe !== undefined) return probe.value;
  throw walk.last as unknown as GatewayError;
}

/** Waits out the soonest `Retry-After` that fits in the budget and tries that route again, in turn. */
async function retryWaiting<T>(deps: RunnerDeps, walk: Walk<T>, waiting: AdmittedRoute[], signal: AbortSignal): Promise<{ value: T } | undefined> {
  const byTime = [...waiting].sort((a, b) => (deps.routeHealth?.retryAt(a.route.key) ?? 0) - (deps.routeHealth?.retryAt(b.route.key) ?? 0));
  for (const route of byTime) {
    const wait = (deps.routeHealth?.retryAt(route.route.key) ?? 0) - Date.now();
    if (wait > walk.budgetLeft() || signal.aborted) return undefined;
    if (wait > 0) await sleep(wait, undefined, { signal }).catch(() => undefined);
    if (signal.aborted) return undefined;
    const done = await walk.attempt(route, 'closed');
    if (done !== undefined) return done;
  }
  return undefined;
}
