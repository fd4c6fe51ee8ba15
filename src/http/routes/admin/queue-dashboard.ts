import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { KoaAdapter } from '@bull-board/koa';
import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import { adminAuth } from '../../middleware/admin-auth.js';
import type { GatewayState } from '../../state.js';
import { type JobQueue, QUEUE_NAMES } from '../../../queue/index.js';

/** Where the queue dashboard is mounted. */
export const QUEUE_DASHBOARD_PATH = '/admin/queues';

/**
 * bull-board over the web's BullMQ queues at `/admin/queues`, behind the operator token
 * (bearer header) or an operator console session. Its pages and its JSON API (`…/api/queues`)
 * share the guard; actions (retry, clean, pause) are unsafe methods, so a cookie-authenticated
 * one must also be same-origin.
 */
export function queueDashboardRoutes(jobs: JobQueue, adminToken: string | undefined): Router<GatewayState> {
  const serverAdapter = new KoaAdapter();
  serverAdapter.setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({
    queues: QUEUE_NAMES.map((name) => new BullMQAdapter(jobs.queue(name))),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'Farebox queues' } },
  });
  const board = serverAdapter.registerPlugin() as unknown as Middleware<GatewayState>;
  const router = new Router<GatewayState>();
  router.all([QUEUE_DASHBOARD_PATH, `${QUEUE_DASHBOARD_PATH}/*rest`], adminAuth(adminToken), board);
  return router;
}
