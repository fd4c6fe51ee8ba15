import { Router } from '@koa/router';
import { recognizeDocument } from '../../../ocr/index.js';
import { authenticate } from '../../middleware/authenticate.js';
import { idempotency } from '../../middleware/idempotency.js';
import { costCeiling } from '../../middleware/cost-ceiling.js';
import type { GatewayState } from '../../state.js';
import { serveQueued } from '../jobs/queued-answer.js';
import type { QueuedRouteDeps } from '../images/images-routes.js';

/** `POST /v1/ocr` (Mistral's OCR API shape): inference key → RPM → validation → model → admission → job. */
export function ocrRoutes(deps: QueuedRouteDeps): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/v1' });
  router.post('/ocr', authenticate(deps.keyAuth, ['inference']), deps.rateLimit, idempotency(deps.idempotency), costCeiling(deps.ceilings), async (ctx) => {
    const body = ctx.request.body;
    await serveQueued(ctx, deps.jobs, 'ocr', async (call) => ({ status: 200, body: JSON.stringify(await recognizeDocument(deps, call, body)) }));
  });
  return router;
}
