import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import { admitChat } from '../../../chat/chat-admit.js';
import { completeChat } from '../../../chat/chat-complete.js';
import type { ChatServiceDeps } from '../../../chat/chat-service-deps.js';
import { streamChat, type ChunkSink } from '../../../chat/chat-stream.js';
import type { KeyAuthenticator } from '../../../keys/key-auth.js';
import { authenticate } from '../../middleware/authenticate.js';
import { commitStream, SseWriter } from '../../sse/sse-writer.js';
import { requireKey, type GatewayContext, type GatewayState } from '../../state.js';
import { abortOnClose } from './abort-on-close.js';

/** What the chat route needs: the chat service's deps, key auth and the RPM middleware. */
export interface ChatRouteDeps extends ChatServiceDeps {
  readonly keyAuth: KeyAuthenticator;
  /** Per-key RPM check that also sets the `X-RateLimit-*` headers. */
  readonly rateLimit: Middleware<GatewayState>;
  /** The same check run inside admission's script (used instead of `rateLimit` when given). */
  readonly deferredRateLimit?: Middleware<GatewayState>;
}

/** Takes the response over from Koa once the stream commits; until then errors are JSON. */
function sseSink(ctx: GatewayContext): ChunkSink {
  const writer = new SseWriter(ctx.res);
  return {
    get closed() {
      return writer.closed;
    },
    open: () => commitStream(ctx, writer),
    send: (chunk) => writer.send(chunk),
    finish: () => writer.finish(),
  };
}

/** `POST /v1/chat/completions`: inference keys → RPM → validation → admission → provider. */
export function chatRoutes(deps: ChatRouteDeps): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/v1' });
  router.post('/chat/completions', authenticate(deps.keyAuth, ['inference']), deps.deferredRateLimit ?? deps.rateLimit, async (ctx) => {
    const admitted = await admitChat(deps, requireKey(ctx), ctx.state.requestId, ctx.request.body, ctx.state.rate);
    const client = abortOnClose(ctx.res);
    try {
      if (admitted.body.stream === true) await streamChat(deps, admitted, sseSink(ctx), client.signal);
      else ctx.body = await completeChat(deps, admitted, client.signal);
    } finally {
      client.dispose();
      // Whatever ended the request, its hold and slot end with it (a no-op once settled).
      await admitted.ticket.release();
    }
  });
  return router;
}
