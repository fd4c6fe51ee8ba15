import { Router } from '@koa/router';
import { type ChatFront, type ChatServiceDeps, doorFront, runChatFront } from '../../../chat/index.js';
import { clientChannel } from '../../sse/client-channel.js';
import { inferenceGuards, type InferenceGuardDeps } from '../inference-guards.js';
import { requireKey, type GatewayContext, type GatewayState } from '../../state.js';

/** What the chat front doors need: the chat service's deps and the inference guards'. */
export interface ChatRouteDeps extends ChatServiceDeps, InferenceGuardDeps {}

/** Runs a front door's request through the one chat path; sets the body unless it streamed. */
export async function serveChatFront(deps: ChatRouteDeps, ctx: GatewayContext, front: ChatFront): Promise<void> {
  const request = { key: requireKey(ctx), requestId: ctx.state.requestId, rate: ctx.state.rate };
  const answer = await runChatFront(deps, request, clientChannel(ctx), front);
  if (answer !== undefined) ctx.body = answer;
}

/** `POST /v1/chat/completions`. */
export function chatRoutes(deps: ChatRouteDeps): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/v1' });
  router.post('/chat/completions', ...inferenceGuards(deps), (ctx) => serveChatFront(deps, ctx, doorFront(deps, 'chat/completions', ctx.request.body)));
  return router;
}
