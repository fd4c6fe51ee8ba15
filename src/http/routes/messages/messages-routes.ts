import { Router } from '@koa/router';
import { doorFront } from '../../../chat/index.js';
import type { GatewayState } from '../../state.js';
import { serveChatFront, type ChatRouteDeps } from '../chat/chat-routes.js';
import { inferenceGuards } from '../inference-guards.js';
import { anthropicErrors, apiKeyHeader } from './anthropic-errors.js';

/** `POST /v1/messages`: Anthropic's Messages API over the one chat path, errors in Anthropic's shape. */
export function messagesRoutes(deps: ChatRouteDeps): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/v1' });
  router.post('/messages', anthropicErrors(deps.log), apiKeyHeader(), ...inferenceGuards(deps), (ctx) => {
    const beta = ctx.get('anthropic-beta');
    return serveChatFront(deps, ctx, 'messages', doorFront(deps, 'messages', ctx.request.body, beta !== '' ? { beta } : {}));
  });
  return router;
}
