import type { AdmissionTicket } from '../../admission/index.js';
import type { AttemptRecord } from '../../ledger/index.js';
import { type GatewayError, toGatewayError } from '../../platform/errors/index.js';
import type { ChatStreamEvent } from '../../providers/index.js';
import { type AttemptSink, judgeFailure, type RouteGate, type RouteTarget } from '../../routing/index.js';
import type { AdmittedChat, AdmittedRequest, AdmittedRoute } from '../admit/chat-admit.js';
import type { ChatServiceDeps } from '../chat-service-deps.js';
import { attemptOn } from '../routes/route-attempt.js';
import { type BilledLeg, ChatSettlement } from '../settle/chat-settlement.js';
import type { ChunkSink } from '../wire/chunk-sink.js';
import type { CompletionMeta } from '../wire/chat-wire.js';
import { ProducedText } from '../wire/produced-text.js';
import { type RelayEnd, relayStream, skippedEvents } from '../wire/stream-relay.js';
import type { AnswerSoFar } from './answer-so-far.js';
import { continuationRoute } from './continuation-route.js';
import { continuationDeltas, type Prefill, prefillOf } from './prefill.js';

/** The routes a stream may go on with once the route answering it broke mid-answer. */
export interface NextRoutes {
  /** The admitted request: its id, its ticket (whose hold must cover every leg) and meta. */
  readonly request: AdmittedRequest;
  /** The routes after the answering one, in the order they would have been tried. */
  readonly routes: readonly AdmittedRoute[];
  /** Where the request's attempts are recorded. */
  readonly attempts?: AttemptSink | undefined;
}

/** One leg of a streamed answer: the route it ran on, what it produced, how it ended, and its settlement. */
export interface StreamLeg {
  readonly admitted: AdmittedChat;
  /** Settles this leg together with every earlier one. */
  readonly settlement: ChatSettlement;
  readonly produced: ProducedText;
  readonly end: RelayEnd;
  /** 1 for the route that answered first. */
  readonly number: number;
  /** When its upstream call started (performance.now()). */
  readonly started: number;
}

/** What going on with a stream needs: where its chunks go, as which completion, and the answer so far. */
export interface ContinueContext {
  readonly meta: CompletionMeta;
  readonly sink: ChunkSink;
  readonly signal: AbortSignal;
  readonly answer: AnswerSoFar;
  readonly next: NextRoutes;
}

/** Failures of the upstream itself; anything else (the gateway's own fault) ends the stream. */
const CONTINUABLE: ReadonlySet<string> = new Set(['upstream_error', 'upstream_timeout', 'rate_limited', 'service_unavailable']);

/** Whether a leg that ended this way may be continued elsewhere: the upstream broke while the client still listens. */
function mayContinue(leg: StreamLeg, ctx: ContinueContext): leg is StreamLeg & { end: { failure: GatewayError } } {
  const failure = leg.end.failure;
  return failure !== undefined && CONTINUABLE.has(failure.code) && !ctx.sink.closed && !ctx.signal.aborted && ctx.answer.continuable;
}

/** Writes attempt lines of a continued stream, each naming its leg. */
class LegLog {
  constructor(
    private readonly deps: ChatServiceDeps,
    private readonly sink: AttemptSink | undefined,
  ) {}

  note(route: RouteTarget, leg: number, outcome: AttemptRecord['outcome'], cause: string | null, status: number | null, ms: number): void {
    this.sink?.attempted({ model: route.entryId, provider: route.providerId, upstream_model: route.upstreamModel, outcome, cause, status, latency_ms: Math.round(ms), leg });
    if (outcome === 'skipped') this.deps.metrics?.routes.skip(route.key, route.providerId, cause ?? 'skipped');
  }
}

/**
 * The hold covers `need` (every leg's worst case, the finished legs at what they cost): as is,
 * or once grown under the same balance and caps as admission. False when it cannot grow.
 */
async function holdCovers(ticket: AdmissionTicket, need: bigint): Promise<boolean> {
  if (need <= ticket.held) return true;
  return (await ticket.grow?.(need - ticket.held)) ?? false;
}

/** An upstream stream whose first item arrived, or undefined when it failed before (recorded). */
async function openLeg(deps: ChatServiceDeps, attempt: AdmittedChat, gate: RouteGate, ctx: ContinueContext, log: LegLog, number: number): Promise<{ first: IteratorResult<ChatStreamEvent>; iterator: AsyncIterator<ChatStreamEvent> } | undefined> {
  const started = performance.now();
  const iterator = attempt.chat.stream({ upstreamModel: attempt.model.doc.upstream_model, body: attempt.body, signal: ctx.signal })[Symbol.asyncIterator]();
  try {
    const first = await iterator.next();
    const ms = performance.now() - started;
    deps.routeHealth?.succeeded(attempt.key, ms);
    deps.metrics?.routes.attempt(attempt.key, attempt.providerId, ms / 1000, undefined);
    log.note(attempt, number, 'answered', 'continuation', null, ms);
    return { first, iterator };
  } catch (err) {
    const ms = performance.now() - started;
    const verdict = judgeFailure(toGatewayError(err));
    // As before the first byte of any request: only the route's own faults count against it.
    if (verdict.failover && verdict.routeFault !== false) deps.routeHealth?.failed(attempt.key, verdict.retryAfterMs);
    else if (gate === 'trial') deps.routeHealth?.abandoned(attempt.key);
    deps.metrics?.routes.attempt(attempt.key, attempt.providerId, ms / 1000, verdict.cause);
    log.note(attempt, number, 'failed', verdict.cause, verdict.status ?? null, ms);
    // Its refusal (a prefill it does not take, say) is not the answer's cause: the cut stays that.
    deps.log.info({ request_id: attempt.requestId, route: attempt.key, cause: verdict.cause }, 'continuing route failed before its first byte');
    return undefined;
  }
}

/** Runs one more leg on the first route that can continue the answer, or undefined when none can. */
async function nextLeg(deps: ChatServiceDeps, leg: StreamLeg, queue: AdmittedRoute[], ctx: ContinueContext, log: LegLog): Promise<StreamLeg | undefined> {
  const earlier: BilledLeg[] = [...leg.settlement.earlier, await leg.settlement.bill({ usage: leg.end.usage, complete: leg.end.final, produced: leg.produced })];
  const prefill: Prefill = prefillOf(ctx.answer.text);
  const producedTokens = earlier.reduce((sum, l) => sum + l.usage.completionTokens, 0);
  const owed = earlier.reduce((sum, l) => sum + l.metered, 0n);
  const number = leg.number + 1;
  for (let route = queue.shift(); route !== undefined; route = queue.shift()) {
    const gate = deps.routeHealth?.gate(route.key) ?? 'closed';
    if (gate === 'open' || gate === 'retry_after') {
      log.note(route, number, 'skipped', gate === 'open' ? 'circuit_open' : 'retry_after', null, 0);
      continue;
    }
    const continuing = await continuationRoute(route, prefill, producedTokens);
    if (!(await holdCovers(ctx.next.request.ticket, owed + continuing.hold.estimate))) {
      if (gate === 'trial') deps.routeHealth?.abandoned(route.key);
      deps.log.info({ request_id: ctx.next.request.requestId, route: route.key }, 'the hold cannot cover another leg; the stream ends here');
      return undefined;
    }
    const attempt = attemptOn(ctx.next.request, continuing, () => undefined);
    const started = performance.now();
    const opened = await openLeg(deps, attempt, gate, ctx, log, number);
    if (opened === undefined) continue;
    if (ctx.sink.closed) {
      await opened.iterator.return?.().catch(() => undefined);
      return undefined;
    }
    const produced = new ProducedText();
    const source = { ...opened, body: continuing.body };
    const end = await relayStream(ctx.meta, source, ctx.sink, produced, {
      reshape: continuationDeltas(prefill),
      seen: (choices) => ctx.answer.add(choices),
      skipped: skippedEvents(deps.log, attempt.requestId, attempt.key),
    });
    return { admitted: attempt, settlement: new ChatSettlement(deps, attempt, earlier), produced, end, number, started };
  }
  return undefined;
}

/**
 * Goes on with a stream whose upstream broke mid-answer (a cut, a stream-level error, a stall
 * past the idle limit) while its client still listens: the next route that takes prefill gets
 * the same conversation plus the answer so far as a trailing assistant message, and its
 * deltas join the same client stream. Before a leg starts the hold must cover every leg (the
 * finished ones at their cost, the new one at its worst case); when it cannot grow, or no
 * route is left that takes prefill, the last leg is returned as it ended and the stream ends
 * as any broken stream does, with the cause of its break. `onLeg` is told of each leg that
 * ran, so a failure before the end still settles every one of them.
 */
export async function continueStream(deps: ChatServiceDeps, cut: StreamLeg, ctx: ContinueContext, onLeg: (leg: StreamLeg) => void): Promise<StreamLeg> {
  // Only routes that take prefill can go on; without any, the stream ends as it broke.
  const queue = ctx.next.routes.filter((route) => route.prefill === true);
  const log = new LegLog(deps, ctx.next.attempts);
  let leg = cut;
  while (queue.length > 0 && mayContinue(leg, ctx)) {
    const { failure } = leg.end;
    const verdict = judgeFailure(failure);
    log.note(leg.admitted, leg.number, 'failed', verdict.cause, verdict.status ?? null, performance.now() - leg.started);
    deps.log.info({ request_id: leg.admitted.requestId, route: leg.admitted.key, cause: verdict.cause }, 'stream broke mid-answer; continuing on the next route');
    const next = await nextLeg(deps, leg, queue, ctx, log);
    if (next === undefined) break;
    leg = next;
    onLeg(leg);
  }
  return leg;
}
