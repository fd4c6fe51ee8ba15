import { PassThrough } from 'node:stream';
import { Router } from '@koa/router';
import type { Deps } from '../../../src/deps.js';
import { GatewayError } from '../../../src/platform/errors/gateway-error.js';
import { authenticate } from '../../../src/http/middleware/authenticate.js';
import { rateLimit } from '../../../src/http/middleware/rate-limit.js';
import { requireKey, type GatewayContext, type GatewayState } from '../../../src/http/state.js';

interface TestBody {
  model?: string;
  /** nano-USD as decimal strings. */
  estimate?: string;
  cost?: string;
  delay_ms?: number;
  /** Tokens reserved against tokens-per-minute limits, and the tokens billed at settlement. */
  tokens?: number;
  billed_tokens?: number;
  end_user?: string;
}

/** The optional admission fields of a test body. */
function extras(body: TestBody): { tokens?: number; endUser?: string } {
  return { ...(body.tokens === undefined ? {} : { tokens: body.tokens }), ...(body.end_user === undefined ? {} : { endUser: body.end_user }) };
}

function bodyOf(value: unknown): TestBody {
  return typeof value === 'object' && value !== null ? (value as TestBody) : {};
}

function modelOf(deps: Deps, id: string | undefined) {
  const model = id ? deps.catalog.get(id) : undefined;
  if (!model) throw new GatewayError('model_not_found', `no model ${String(id)}`, { param: 'model' });
  return model;
}

/** Admits the test request a body describes, for the calling key. */
function admitFor(deps: Deps, ctx: GatewayContext, body: ReturnType<typeof bodyOf>, stream: boolean) {
  return deps.admission.admit({
    requestId: ctx.state.requestId,
    key: requireKey(ctx),
    model: modelOf(deps, body.model),
    estimate: BigInt(body.estimate ?? '0'),
    stream,
    ...extras(body),
  });
}

/**
 * A minimal metered route for admission tests: auth → rateLimit → admit → settle a fixed
 * cost (`POST /test/charge`), or hold a stream slot until the client goes away
 * (`POST /test/stream`).
 */
export function admissionTestRouter(deps: Deps): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/test' });
  const guard = [authenticate(deps.keyAuth, ['inference']), rateLimit(deps.admission)] as const;
  router.post('/charge', ...guard, async (ctx) => {
    const body = bodyOf(ctx.request.body);
    const ticket = await admitFor(deps, ctx, body, false);
    if (body.delay_ms) await new Promise((r) => setTimeout(r, body.delay_ms));
    const outcome = await ticket.settle(BigInt(body.cost ?? '0'), { prompt: body.billed_tokens ?? 1 });
    ctx.body = {
      request_id: ctx.state.requestId,
      held: ticket.held.toString(),
      cost: outcome.cost.toString(),
      charged: outcome.charged.toString(),
      absorbed: outcome.absorbed.toString(),
    };
  });
  router.post('/stream', ...guard, async (ctx) => {
    const body = bodyOf(ctx.request.body);
    const ticket = await admitFor(deps, ctx, body, true);
    const stream = new PassThrough();
    ctx.res.on('close', () => {
      stream.end();
      void ticket.release();
    });
    ctx.type = 'text/plain';
    ctx.body = stream;
    stream.write('admitted\n');
  });
  return router;
}
