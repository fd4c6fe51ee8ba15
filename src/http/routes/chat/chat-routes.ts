import { Router } from '@koa/router';
import { type ChatDoor, type ChatFront, type ChatServiceDeps, doorFront, doorStreamForm, runChatFront } from '../../../chat/index.js';
import { classifyError } from '../../../platform/errors/index.js';
import { cacheHeadersOf, chatThroughCache, type ResponseCache } from '../../../cache/index.js';
import { clientChannel } from '../../sse/client-channel.js';
import { inferenceGuards, type InferenceGuardDeps } from '../inference-guards.js';
import { requireKey, type GatewayContext, type GatewayState } from '../../state.js';

/** What the chat front doors need: the chat service's deps and the inference guards'. */
export interface ChatRouteDeps extends ChatServiceDeps, InferenceGuardDeps {
  /** The exact response cache; absent: every request runs. */
  readonly cache?: ResponseCache;
}

/** What a door's body says of itself: whether it streams, and the model it names. */
function bodyFacts(body: unknown): { stream: boolean; model: string } {
  const fields = typeof body === 'object' && body !== null ? (body as { stream?: unknown; model?: unknown }) : {};
  return { stream: fields.stream === true, model: typeof fields.model === 'string' ? fields.model : '' };
}

/**
 * Runs a front door's request through the one chat path; sets the body unless it streamed. A
 * stream committed early that then fails before any answer ends with the door's error events
 * (and the error still goes up, so the error boundary logs it).
 */
export async function serveChatFront(deps: ChatRouteDeps, ctx: GatewayContext, door: ChatDoor, front: ChatFront): Promise<void> {
  const request = { key: requireKey(ctx), requestId: ctx.state.requestId, rate: ctx.state.rate };
  const form = doorStreamForm(door);
  const { stream, model } = bodyFacts(ctx.request.body);
  const channel = clientChannel(ctx, form, stream);
  try {
    const headers = cacheHeadersOf((name) => ctx.get(name));
    const cached = await chatThroughCache(deps, { ...request, door, body: ctx.request.body, headers, stream }, front, channel);
    const answer = cached.served ? cached.answer : await runChatFront(deps, request, channel, cached.front);
    if (answer !== undefined) ctx.body = answer;
  } catch (err) {
    if (stream) await channel.events.fail(classifyError(err), form, model);
    throw err;
  }
}

/** `POST /v1/chat/completions`. */
export function chatRoutes(deps: ChatRouteDeps): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/v1' });
  router.post('/chat/completions', ...inferenceGuards(deps), (ctx) => serveChatFront(deps, ctx, 'chat/completions', doorFront(deps, 'chat/completions', ctx.request.body)));
  return router;
}
