import { Router } from '@koa/router';
import { doorFront } from '../../../chat/index.js';
import type { GatewayState } from '../../state.js';
import { serveChatFront, type ChatRouteDeps } from '../chat/chat-routes.js';
import { inferenceGuards } from '../inference-guards.js';

/** `POST /v1/responses`: OpenAI's Responses API, stateless, over the one chat path. */
export function responsesRoutes(deps: ChatRouteDeps): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/v1' });
  router.post('/responses', ...inferenceGuards(deps), (ctx) => serveChatFront(deps, ctx, 'responses', doorFront(deps, 'responses', ctx.request.body)));
  return router;
}
