import { Router } from '@koa/router';
import { admitEmbeddings, createEmbeddings, type EmbeddingsServiceDeps } from '../../../embeddings/index.js';
import { CACHE_HEADER, cacheHeadersOf, embeddingsThroughCache, type ResponseCache } from '../../../cache/index.js';
import type { DraftLookup } from '../../../ledger/index.js';
import { requireKey, type GatewayState } from '../../state.js';
import { abortOnClose } from '../../edge/abort-on-close.js';
import { inferenceGuards, type InferenceGuardDeps } from '../inference-guards.js';

/** What the embeddings route needs: the service's deps and the inference guards'. */
export interface EmbeddingsRouteDeps extends EmbeddingsServiceDeps, InferenceGuardDeps {
  /** The exact response cache; absent: every request runs. */
  readonly cache?: ResponseCache;
  /** Open request records, so a cache hit's record names the answer it was served from. */
  readonly requests?: DraftLookup;
}

/** `POST /v1/embeddings` (OpenAI's shape): inference key → RPM → validation → model → count → admission → provider. */
export function embeddingsRoutes(deps: EmbeddingsRouteDeps): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/v1' });
  router.post('/embeddings', ...inferenceGuards(deps), async (ctx) => {
    const headers = cacheHeadersOf((name) => ctx.get(name));
    const cached = await embeddingsThroughCache(deps, { key: requireKey(ctx), requestId: ctx.state.requestId, rate: ctx.state.rate, body: ctx.request.body, headers });
    if (cached.header !== undefined) ctx.set(CACHE_HEADER, cached.header);
    if (cached.served) {
      ctx.type = 'application/json';
      ctx.body = cached.body;
      return;
    }
    const admitted = await admitEmbeddings(deps, requireKey(ctx), ctx.state.requestId, ctx.request.body, ctx.state.rate);
    const client = abortOnClose(ctx.res);
    try {
      const json = await createEmbeddings(deps, admitted, client.signal);
      ctx.type = 'application/json';
      ctx.body = json;
      cached.keep?.(json);
    } finally {
      client.dispose();
      // Whatever ended the request, its hold ends with it (a no-op once settled).
      await admitted.ticket.release();
    }
  });
  return router;
}
