import { Router } from '@koa/router';
import { recognizeDocument } from '../../../ocr/index.js';
import { authenticate } from '../../middleware/authenticate.js';
import { idempotency } from '../../middleware/idempotency.js';
import { costCeiling } from '../../middleware/cost-ceiling.js';
import { requireKey, type GatewayState } from '../../state.js';
import { abortOnClose } from '../../edge/abort-on-close.js';
import type { QueuedRouteDeps } from '../images/images-routes.js';

/** `POST /v1/ocr` (Mistral's OCR API shape): inference key → RPM → validation → model → admission → job. */
export function ocrRoutes(deps: QueuedRouteDeps): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/v1' });
  router.post('/ocr', authenticate(deps.keyAuth, ['inference']), deps.rateLimit, idempotency(deps.idempotency), costCeiling(deps.ceilings), async (ctx) => {
    const client = abortOnClose(ctx.res);
    try {
      ctx.body = await recognizeDocument(deps, { key: requireKey(ctx), requestId: ctx.state.requestId, signal: client.signal }, ctx.request.body);
    } finally {
      client.dispose();
    }
  });
  return router;
}
