import { Router } from '@koa/router';
import { admitChat } from '../../../chat/chat-admit.js';
import { completeChat } from '../../../chat/chat-complete.js';
import { streamChat } from '../../../chat/chat-stream.js';
import { translatingSink } from '../../../fronts/event-stream-sink.js';
import { completionToResponse, responseIds, type ResponseShell } from '../../../responses/responses-output.js';
import { responsesRequestSchema } from '../../../responses/responses-schema.js';
import { ResponsesStreamTranslator } from '../../../responses/responses-stream.js';
import { responsesToChat } from '../../../responses/responses-to-chat.js';
import { authenticate } from '../../middleware/authenticate.js';
import { requireKey, type GatewayState } from '../../state.js';
import { validate } from '../../validate.js';
import { abortOnClose } from '../chat/abort-on-close.js';
import type { ChatRouteDeps } from '../chat/chat-routes.js';

/**
 * `POST /v1/responses`: OpenAI's Responses API, stateless. The request is mapped to a chat
 * request and runs through the chat service (same admission, holds, settlement, ledger);
 * only the wire format differs.
 */
export function responsesRoutes(deps: ChatRouteDeps): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/v1' });
  router.post('/responses', authenticate(deps.keyAuth, ['inference']), deps.deferredRateLimit ?? deps.rateLimit, async (ctx) => {
    const request = validate(responsesRequestSchema, ctx.request.body);
    const admitted = await admitChat(deps, requireKey(ctx), ctx.state.requestId, responsesToChat(request), ctx.state.rate);
    const shell: ResponseShell = { ids: responseIds(admitted.requestId), createdAt: admitted.meta.created, model: admitted.model.id, request };
    const client = abortOnClose(ctx.res);
    try {
      if (request.stream === true) await streamChat(deps, admitted, translatingSink(ctx, new ResponsesStreamTranslator(shell)), client.signal);
      else ctx.body = completionToResponse(shell, await completeChat(deps, admitted, client.signal));
    } finally {
      client.dispose();
    }
  });
  return router;
}
