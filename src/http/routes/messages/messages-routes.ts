import { Router } from '@koa/router';
import { admitChat } from '../../../chat/chat-admit.js';
import { completeChat } from '../../../chat/chat-complete.js';
import { streamChat } from '../../../chat/chat-stream.js';
import { translatingSink } from '../../../fronts/event-stream-sink.js';
import { completionToMessage, messageId } from '../../../messages/messages-output.js';
import { messagesRequestSchema } from '../../../messages/messages-schema.js';
import { MessagesStreamTranslator } from '../../../messages/messages-stream.js';
import { messagesToChat } from '../../../messages/messages-to-chat.js';
import { authenticate } from '../../middleware/authenticate.js';
import { requireKey, type GatewayState } from '../../state.js';
import { validate } from '../../validate.js';
import { abortOnClose } from '../chat/abort-on-close.js';
import type { ChatRouteDeps } from '../chat/chat-routes.js';
import { anthropicErrors, apiKeyHeader } from './anthropic-errors.js';

/**
 * `POST /v1/messages`: Anthropic's Messages API. The request is mapped to a chat request and
 * runs through the chat service (same admission, holds, settlement, ledger) and the shared
 * adapter contract; only the wire format differs.
 */
export function messagesRoutes(deps: ChatRouteDeps): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/v1' });
  router.post('/messages', anthropicErrors(deps.log), apiKeyHeader(), authenticate(deps.keyAuth, ['inference']), deps.rateLimit, async (ctx) => {
    const request = validate(messagesRequestSchema, ctx.request.body);
    const admitted = await admitChat(deps, requireKey(ctx), ctx.state.requestId, messagesToChat(request));
    const id = messageId(admitted.requestId);
    const client = abortOnClose(ctx.res);
    try {
      if (request.stream === true) {
        const translator = new MessagesStreamTranslator({ id, model: admitted.model.id, inputTokens: await admitted.promptTokens() });
        await streamChat(deps, admitted, translatingSink(ctx, translator), client.signal);
      } else {
        ctx.body = completionToMessage(id, admitted.model.id, await completeChat(deps, admitted, client.signal));
      }
    } finally {
      client.dispose();
    }
  });
  return router;
}
