import { Router } from '@koa/router';
import { admitChat } from '../../../chat/chat-admit.js';
import { completeChat } from '../../../chat/chat-complete.js';
import { streamChat } from '../../../chat/chat-stream.js';
import { translatingSink } from '../../../fronts/event-stream-sink.js';
import { completionToMessage, messageId } from '../../../messages/messages-output.js';
import { messagesRequestSchema } from '../../../messages/messages-schema.js';
import { MessagesStreamTranslator } from '../../../messages/messages-stream.js';
import { completeRelayed } from '../../../messages/messages-relay.js';
import { streamRelayed } from '../../../messages/messages-relay-stream.js';
import { messagesToChat, untranslatableParam } from '../../../messages/messages-to-chat.js';
import { GatewayError } from '../../../errors/gateway-error.js';
import type { JsonRecord } from '../../../providers/http/narrow.js';
import { authenticate } from '../../middleware/authenticate.js';
import { requireKey, type GatewayState } from '../../state.js';
import { validate } from '../../validate.js';
import { abortOnClose } from '../chat/abort-on-close.js';
import type { ChatRouteDeps } from '../chat/chat-routes.js';
import { anthropicErrors, apiKeyHeader } from './anthropic-errors.js';

/**
 * `POST /v1/messages`: Anthropic's Messages API. Admission always goes through the chat
 * service (the request mapped to a chat request: same estimate, holds, settlement, ledger).
 * A provider that offers the `messages` capability then gets the client's body as is and its
 * answer goes back as is (only `model` and `usage.cost` change); any other provider is
 * reached through the shared chat adapter contract, translated both ways.
 */
export function messagesRoutes(deps: ChatRouteDeps): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/v1' });
  router.post('/messages', anthropicErrors(deps.log), apiKeyHeader(), authenticate(deps.keyAuth, ['inference']), deps.deferredRateLimit ?? deps.rateLimit, async (ctx) => {
    const request = validate(messagesRequestSchema, ctx.request.body);
    const admitted = await admitChat(deps, requireKey(ctx), ctx.state.requestId, messagesToChat(request), ctx.state.rate);
    const relay = deps.providers.get(admitted.providerId).messages;
    const untranslatable = relay === undefined ? untranslatableParam(request) : undefined;
    if (untranslatable !== undefined) {
      await admitted.ticket.release();
      throw new GatewayError('invalid_request', `${untranslatable} needs a model whose provider speaks the Messages API natively (server tools, documents, search results)`, { param: untranslatable });
    }
    const id = messageId(admitted.requestId);
    const client = abortOnClose(ctx.res);
    try {
      if (relay !== undefined) {
        // The body as the client sent it (validated above), not the parsed copy.
        const beta = ctx.get('anthropic-beta');
        const relayed = { admitted, relay, body: ctx.request.body as JsonRecord, ...(beta !== '' ? { beta } : {}) };
        if (request.stream === true) await streamRelayed(deps, relayed, ctx, client.signal);
        else ctx.body = await completeRelayed(deps, relayed, client.signal);
      } else if (request.stream === true) {
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
