import type { KeyDoc } from '../accounts/index.js';
import type { DeferredRate } from '../admission/index.js';
import { runRoutes } from '../routing/index.js';
import { admitChat, type AdmittedChat, type AdmittedRequest } from './admit/chat-admit.js';
import { completeChat } from './chat-complete.js';
import type { ChatFront, FrontPlan } from './chat-front.js';
import type { ChatServiceDeps } from './chat-service-deps.js';
import { type NextRoutes, streamChat } from './chat-stream.js';
import type { ClientChannel } from './wire/client-channel.js';
import { attemptOn, recordAttempts } from './routes/route-attempt.js';
import { upstreamSignal } from './routes/upstream-signal.js';

/** Who asks: the authenticated key, the request id, and a pending RPM check. */
export interface FrontRequest {
  readonly key: KeyDoc;
  readonly requestId: string;
  readonly rate?: DeferredRate;
}

/**
 * The streamed branches return their stream's promise (it ends with undefined) rather than
 * await it: no frame of this function is kept for as long as a stream stays open.
 */
async function runPlan(deps: ChatServiceDeps, admitted: AdmittedChat, plan: FrontPlan, channel: ClientChannel, signal: AbortSignal, next: NextRoutes): Promise<unknown> {
  const stream = admitted.body.stream === true;
  if (plan.kind === 'relay') {
    if (!stream) return await plan.complete(signal);
    return plan.stream(channel.events, signal);
  }
  if (plan.headers !== undefined) channel.setHeaders(plan.headers);
  if (!stream) return plan.answer(await completeChat(deps, admitted, signal));
  return streamChat(deps, admitted, plan.sink(channel.events), signal, next);
}

/** Runs the front's plan on each route in turn until one answers (see runRoutes). */
async function runOnRoutes(deps: ChatServiceDeps, admitted: AdmittedRequest, front: ChatFront, channel: ClientChannel): Promise<unknown> {
  // Every route's body keeps the client's `stream`: the first one's says how the request runs.
  const stream = admitted.routes[0]?.body.stream === true;
  const upstream = upstreamSignal(channel.departure, deps.requestTiming, stream, {
    graceReads: deps.graceReads,
    // The slot is the client's: gone with it. The hold is the money's: it stays until settled.
    onLeave: stream ? () => void admitted.ticket.freeStreamSlot?.() : undefined,
  });
  try {
    const request = { requestId: admitted.requestId, signal: upstream.signal, attempts: recordAttempts(deps, admitted.requestId) };
    return await runRoutes(deps, admitted.routes, request, async (route, firstByte) => {
      const attempt = attemptOn(admitted, route, firstByte);
      // A stream that breaks mid-answer may go on with the routes after this one.
      const next = { request: admitted, routes: admitted.routes.slice(admitted.routes.indexOf(route) + 1), attempts: request.attempts };
      return runPlan(deps, attempt, await front.plan(attempt), channel, upstream.signal, next);
    });
  } finally {
    upstream.dispose();
  }
}

/**
 * The one path every chat front door takes: admission (a hold of the worst case over every
 * route), the front's plan on each route in turn until one gives its first byte, the upstream
 * call tied to the client's connection, settlement at the answering route's prices. Whatever ends
 * the request, a throw anywhere after admission included, its hold and stream slot end with
 * it (a no-op once settled). Returns the non-streamed answer, or undefined once streamed.
 */
export async function runChatFront(deps: ChatServiceDeps, request: FrontRequest, channel: ClientChannel, front: ChatFront): Promise<unknown> {
  let admitted: AdmittedRequest | undefined;
  try {
    const admitting = admitChat(deps, request.key, request.requestId, front.chatBody, request.rate, front.holdInputs?.bind(front));
    admitted = admitting instanceof Promise ? await admitting : admitting;
    return await runOnRoutes(deps, admitted, front, channel);
  } finally {
    channel.dispose();
    await admitted?.ticket.release().catch((err: unknown) => {
      // The hold expires on its own; a failed release must not mask the request's outcome.
      deps.log.warn({ err, request_id: request.requestId }, 'admission release failed');
    });
  }
}
