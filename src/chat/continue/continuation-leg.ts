import { toGatewayError } from '../../platform/errors/index.js';
import type { ChatStreamEvent } from '../../providers/index.js';
import { judgeFailure, type RouteGate } from '../../routing/index.js';
import type { AdmittedChat } from '../admit/chat-admit.js';
import type { ChatServiceDeps } from '../chat-service-deps.js';
import type { StreamWatch } from '../routes/stream-watch.js';
import type { OpenedStream } from '../routes/upstream-call.js';
import { ProducedText } from '../wire/produced-text.js';
import { relayStream, skippedEvents } from '../wire/stream-relay.js';
import type { LegLog } from './leg-log.js';
import { continuationDeltas, type Prefill } from './prefill.js';
import type { ContinueContext, StreamLeg } from './stream-leg.js';

/** An upstream stream whose first item arrived, or undefined when it failed before (recorded). */
async function openLeg(deps: ChatServiceDeps, attempt: AdmittedChat, gate: RouteGate, watch: StreamWatch, log: LegLog, number: number): Promise<OpenedStream<ChatStreamEvent> | undefined> {
  const started = performance.now();
  const upstream = attempt.chat.stream({ upstreamModel: attempt.model.doc.upstream_model, body: attempt.body, signal: watch.signal });
  const iterator = watch.events(upstream)[Symbol.asyncIterator]();
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

/** One continuing route, ready to be asked. */
export interface LegStart {
  readonly attempt: AdmittedChat;
  readonly gate: RouteGate;
  readonly watch: StreamWatch;
  readonly log: LegLog;
  readonly number: number;
}

/**
 * Asks one continuing route and relays its deltas into the client's stream: the leg as it
 * ended, `failed` when the route failed before its first byte (recorded), `left` when the
 * client had gone by then.
 */
export async function runLeg(deps: ChatServiceDeps, leg: LegStart, prefill: Prefill, ctx: ContinueContext): Promise<Omit<StreamLeg, 'settlement'> | 'failed' | 'left'> {
  const { attempt, number } = leg;
  const started = performance.now();
  const opened = await openLeg(deps, attempt, leg.gate, leg.watch, leg.log, number);
  if (opened === undefined) return 'failed';
  if (ctx.sink.closed) {
    await opened.iterator.return?.().catch(() => undefined);
    return 'left';
  }
  const produced = new ProducedText();
  const end = await relayStream(ctx.meta, { ...opened, body: attempt.body }, ctx.sink, produced, {
    reshape: continuationDeltas(prefill),
    seen: (choices) => ctx.answer.add(choices),
    skipped: skippedEvents(deps.log, attempt.requestId, attempt.key),
  });
  return { admitted: attempt, produced, end, number, started };
}
