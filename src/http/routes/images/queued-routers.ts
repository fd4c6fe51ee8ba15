import type { Router } from '@koa/router';
import type { JobQueue } from '../../../queue/job-queue.js';
import type { QueuedServiceDeps } from '../../../queue/queued-service-deps.js';
import type { KeyAuthenticator } from '../../../keys/key-auth.js';
import { rateLimit } from '../../middleware/rate-limit.js';
import type { GatewayState } from '../../state.js';
import { ocrRoutes } from '../ocr/ocr-routes.js';
import { imagesRoutes } from './images-routes.js';

/** The routers of the queue path (images, OCR) over a web process's job queue. */
export function queuedRouters(
  deps: Omit<QueuedServiceDeps, 'jobs'> & { readonly keyAuth: KeyAuthenticator },
  jobs: JobQueue,
): Router<GatewayState>[] {
  const routeDeps = { ...deps, jobs, rateLimit: rateLimit(deps.admission) };
  return [imagesRoutes(routeDeps), ocrRoutes(routeDeps)];
}
