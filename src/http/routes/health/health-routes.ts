import { Router } from '@koa/router';
import type { GatewayState } from '../../state.js';
import type { Mongo } from '../../../platform/db/index.js';
import type { Redis } from '../../../platform/redis/index.js';

/** The stores the health routes ask. */
export interface HealthDeps {
  readonly mongo: Mongo;
  readonly redis: Redis;
  /** Which path admits requests (`exact`, `leased`, `degraded`). */
  readonly admission: { mode(): string };
}

/** Liveness and readiness probes. */
export function healthRoutes(deps: HealthDeps): Router<GatewayState> {
  const router = new Router<GatewayState>();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok', admission: deps.admission.mode() };
  });
  router.get('/readyz', async (ctx) => {
    const checks = await Promise.allSettled([deps.mongo.db.command({ ping: 1 }), deps.redis.ping()]);
    const [mongo, redis] = checks.map((c) => c.status === 'fulfilled');
    ctx.status = mongo && redis ? 200 : 503;
    if (ctx.status === 503) ctx.set('Retry-After', '1');
    ctx.body = { status: ctx.status === 200 ? 'ready' : 'unavailable', mongo, redis };
  });
  return router;
}
