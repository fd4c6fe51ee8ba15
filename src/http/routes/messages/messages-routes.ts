import { Router } from '@koa/router';
import { messagesFront } from '../../../fronts/messages/messages-front.js';
import { messagesRequestSchema } from '../../../fronts/messages/messages-schema.js';
import type { JsonRecord } from '../../../providers/http/narrow.js';
import type { GatewayState } from '../../state.js';
import { validate } from '../../../validation/validate.js';
import { serveChatFront, type ChatRouteDeps } from '../chat/chat-routes.js';
import { inferenceGuards } from '../inference-guards.js';
import { anthropicErrors, apiKeyHeader } from './anthropic-errors.js';

/** `POST /v1/messages`: Anthropic's Messages API over the one chat path, errors in Anthropic's shape. */
export function messagesRoutes(deps: ChatRouteDeps): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/v1' });
  router.post('/messages', anthropicErrors(deps.log), apiKeyHeader(), ...inferenceGuards(deps), (ctx) => {
    const request = validate(messagesRequestSchema, ctx.request.body);
    const beta = ctx.get('anthropic-beta');
    // The body as the client sent it (validated above) is what a native provider gets.
    const input = { request, body: ctx.request.body as JsonRecord, ...(beta !== '' ? { beta } : {}) };
    return serveChatFront(deps, ctx, messagesFront(deps, input));
  });
  return router;
}
