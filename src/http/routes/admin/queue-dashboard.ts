import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import { adminAuth } from '../../middleware/admin-auth.js';
import type { GatewayState } from '../../state.js';
import { type JobQueue, QUEUE_NAMES } from '../../../queue/index.js';

/** Where the queue dashboard is mounted. */
export const QUEUE_DASHBOARD_PATH = '/admin/queues';

/** bull-board over the queues, built with its libraries loaded then. */
async function buildBoard(jobs: JobQueue): Promise<Middleware<GatewayState>> {
  const [{ createBullBoard }, { BullMQAdapter }, { KoaAdapter }] = await Promise.all([
    import('@bull-board/api'),
    import('@bull-board/api/bullMQAdapter'),
    import('@bull-board/koa'),
  ]);
  const serverAdapter = new KoaAdapter();
  serverAdapter.setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({
    queues: QUEUE_NAMES.map((name) => new BullMQAdapter(jobs.queue(name))),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'Farebox queues' } },
  });
  return serverAdapter.registerPlugin() as unknown as Middleware<GatewayState>;
}

/**
 * bull-board over the web's BullMQ queues at `/admin/queues`, behind the operator token
 * (bearer header) or an operator console session. Its pages and its JSON API (`…/api/queues`)
 * share the guard; actions (retry, clean, pause) are unsafe methods, so a cookie-authenticated
 * one must also be same-origin. The board and its libraries (about 28 MB resident) are loaded
 * at the first request past the guard: most webs never serve one.
 */
export function queueDashboardRoutes(jobs: JobQueue, adminToken: string | undefined): Router<GatewayState> {
  let board: Promise<Middleware<GatewayState>> | undefined;
  const lazyBoard: Middleware<GatewayState> = async (ctx, next) => {
    board ??= buildBoard(jobs).catch((err: unknown) => {
      board = undefined;
      throw err;
    });
    return (await board)(ctx, next);
  };
  const router = new Router<GatewayState>();
  router.all([QUEUE_DASHBOARD_PATH, `${QUEUE_DASHBOARD_PATH}/*rest`], adminAuth(adminToken), lazyBoard);
  return router;
}
