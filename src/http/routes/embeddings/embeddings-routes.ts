import { Router } from '@koa/router';
import { admitEmbeddings, createEmbeddings, type EmbeddingsServiceDeps } from '../../../embeddings/index.js';
import { requireKey, type GatewayState } from '../../state.js';
import { abortOnClose } from '../../edge/abort-on-close.js';
import { inferenceGuards, type InferenceGuardDeps } from '../inference-guards.js';

/** What the embeddings route needs: the service's deps and the inference guards'. */
export interface EmbeddingsRouteDeps extends EmbeddingsServiceDeps, InferenceGuardDeps {}

/** `POST /v1/embeddings` (OpenAI's shape): inference key → RPM → validation → model → count → admission → provider. */
export function embeddingsRoutes(deps: EmbeddingsRouteDeps): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/v1' });
  router.post('/embeddings', ...inferenceGuards(deps), async (ctx) => {
    const admitted = await admitEmbeddings(deps, requireKey(ctx), ctx.state.requestId, ctx.request.body, ctx.state.rate);
    const client = abortOnClose(ctx.res);
    try {
      const json = await createEmbeddings(deps, admitted, client.signal);
      ctx.type = 'application/json';
      ctx.body = json;
    } finally {
      client.dispose();
      // Whatever ended the request, its hold ends with it (a no-op once settled).
      await admitted.ticket.release();
    }
  });
  return router;
}
