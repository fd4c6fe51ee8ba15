import type { AdmissionTicket } from '../../admission/index.js';
import type { GatewayError } from '../../platform/errors/index.js';
import { judgeFailure } from '../../routing/index.js';
import type { AdmittedRoute } from '../admit/chat-admit.js';
import type { ChatServiceDeps } from '../chat-service-deps.js';
import { attemptOn } from '../routes/route-attempt.js';
import { anyRouteAvailable, streamLimits } from '../routes/stream-limits.js';
import { StreamWatch } from '../routes/stream-watch.js';
import { type BilledLeg, ChatSettlement } from '../settle/chat-settlement.js';
import { runLeg } from './continuation-leg.js';
import { continuationRoute } from './continuation-route.js';
import { LegLog } from './leg-log.js';
import { type Prefill, prefillOf } from './prefill.js';
import type { ContinueContext, StreamLeg } from './stream-leg.js';

export type { ContinueContext, NextRoutes, StreamLeg } from './stream-leg.js';

/** Failures of the upstream itself; anything else (the gateway's own fault) ends the stream. */
const CONTINUABLE: ReadonlySet<string> = new Set(['upstream_error', 'upstream_timeout', 'rate_limited', 'service_unavailable']);

/** Whether a leg that ended this way may be continued elsewhere: the upstream broke while the client still listens. */
function mayContinue(leg: StreamLeg, ctx: ContinueContext): leg is StreamLeg & { end: { failure: GatewayError } } {
  const failure = leg.end.failure;
  return failure !== undefined && CONTINUABLE.has(failure.code) && !ctx.sink.closed && !ctx.signal.aborted && ctx.answer.continuable;
}

/**
 * The hold covers `need` (every leg's worst case, the finished legs at what they cost): as is,
 * or once grown under the same balance and caps as admission. False when it cannot grow.
 */
async function holdCovers(ticket: AdmissionTicket, need: bigint): Promise<boolean> {
  if (need <= ticket.held) return true;
  return (await ticket.grow?.(need - ticket.held)) ?? false;
}

/** Runs one more leg on the first route that can continue the answer, or undefined when none can. */
async function nextLeg(deps: ChatServiceDeps, leg: StreamLeg, queue: AdmittedRoute[], ctx: ContinueContext, log: LegLog): Promise<StreamLeg | undefined> {
  const earlier: BilledLeg[] = [...leg.settlement.earlier, await leg.settlement.bill({ usage: leg.end.usage, complete: leg.end.final, produced: leg.produced, cut: true })];
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
    const watch = new StreamWatch(ctx.signal, streamLimits(deps.requestTiming, attempt, anyRouteAvailable(deps.routeHealth, queue)));
    try {
      const ran = await runLeg(deps, { attempt, gate, watch, log, number }, prefill, ctx);
      if (ran === 'failed') continue;
      return ran === 'left' ? undefined : { ...ran, settlement: new ChatSettlement(deps, attempt, earlier) };
    } finally {
      watch.dispose();
    }
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
