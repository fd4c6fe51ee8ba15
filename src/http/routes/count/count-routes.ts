import { Router } from '@koa/router';
import { type ChatServiceDeps, countInputTokens, type CountLimiter, type InputTokenCount } from '../../../chat/index.js';
import type { KeyAuthenticator } from '../../../accounts/index.js';
import { authenticate } from '../../middleware/authenticate.js';
import { anthropicErrors, apiKeyHeader } from '../messages/anthropic-errors.js';
import { requireKey, type GatewayContext, type GatewayState } from '../../state.js';

/** What the token-count routes need. */
export interface CountRouteDeps extends ChatServiceDeps {
  readonly keyAuth: KeyAuthenticator;
  readonly countLimiter: CountLimiter;
}

/** The header that says how a count was made (`exact`, `upstream`, or `bound`: the hold's upper bound). */
export const COUNT_SOURCE_HEADER = 'x-farebox-token-count';

async function counted(deps: CountRouteDeps, ctx: GatewayContext, door: 'messages' | 'responses'): Promise<InputTokenCount> {
  const key = requireKey(ctx);
  await deps.countLimiter.check(key._id);
  const beta = ctx.get('anthropic-beta');
  const count = await countInputTokens(deps, key, door, ctx.request.body, beta !== '' ? { beta } : {});
  ctx.set(COUNT_SOURCE_HEADER, count.source);
  return count;
}

/**
 * `POST /v1/messages/count_tokens` (Anthropic's shape, also with `?beta=true`) and
 * `POST /v1/responses/input_tokens` (OpenAI's): the input a request would bill, never charged.
 * The body adds `source` beside the vendor's fields, so a bound is never mistaken for a count.
 */
export function countRoutes(deps: CountRouteDeps): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/v1' });
  router.post('/messages/count_tokens', anthropicErrors(deps.log), apiKeyHeader(), authenticate(deps.keyAuth, ['inference']), async (ctx) => {
    const { tokens, source } = await counted(deps, ctx, 'messages');
    ctx.body = { input_tokens: tokens, source };
  });
  router.post('/responses/input_tokens', authenticate(deps.keyAuth, ['inference']), async (ctx) => {
    const { tokens, source } = await counted(deps, ctx, 'responses');
    ctx.body = { object: 'response.input_tokens', input_tokens: tokens, source };
  });
  return router;
}
