import { Router } from '@koa/router';
import { adminAuth } from '../../middleware/admin-auth.js';
import type { GatewayState } from '../../state.js';
import type { Metrics } from '../../../metrics/index.js';

/** `GET /metrics`: Prometheus text, guarded by the operator token. */
export function metricsRoutes(metrics: Metrics, adminToken: string | undefined): Router<GatewayState> {
  const router = new Router<GatewayState>();
  router.get('/metrics', adminAuth(adminToken), async (ctx) => {
    const { contentType, body } = await metrics.render();
    ctx.type = contentType;
    ctx.body = body;
  });
  return router;
}
