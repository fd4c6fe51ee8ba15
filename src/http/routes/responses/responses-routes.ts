import { Router } from '@koa/router';
import { responsesFront } from '../../../fronts/responses/responses-front.js';
import { responsesRequestSchema } from '../../../fronts/responses/responses-schema.js';
import type { GatewayState } from '../../state.js';
import { validate } from '../../../validation/validate.js';
import { serveChatFront, type ChatRouteDeps } from '../chat/chat-routes.js';
import { inferenceGuards } from '../inference-guards.js';

/** `POST /v1/responses`: OpenAI's Responses API, stateless, over the one chat path. */
export function responsesRoutes(deps: ChatRouteDeps): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/v1' });
  router.post('/responses', ...inferenceGuards(deps), (ctx) => serveChatFront(deps, ctx, responsesFront(validate(responsesRequestSchema, ctx.request.body))));
  return router;
}
