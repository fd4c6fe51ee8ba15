import { Router } from '@koa/router';
import type { KeyAuthenticator } from '../../../accounts/index.js';
import { GatewayError } from '../../../platform/errors/index.js';
import type { JobQueue } from '../../../queue/index.js';
import { authenticate } from '../../middleware/authenticate.js';
import { requireKey, type GatewayState } from '../../state.js';
import { jobStateBody, writeAnswer } from './queued-answer.js';

/** What the jobs route needs: key auth and the job queue. */
export interface JobsRouteDeps {
  readonly keyAuth: KeyAuthenticator;
  readonly jobs: JobQueue;
}

/**
 * `GET /v1/jobs/{id}`: an async job (`Prefer: respond-async`) as its account sees it. While it
 * runs: `202` with its state and `Retry-After`; once done: the synchronous call's own answer,
 * status and body, for `JOB_RESULT_TTL_MS`. Another account's job, or an expired one, is a 404.
 */
export function jobsRoutes(deps: JobsRouteDeps): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/v1' });
  router.get('/jobs/:id', authenticate(deps.keyAuth, ['inference']), async (ctx) => {
    const view = await deps.jobs.async.read(ctx.params.id ?? '', requireKey(ctx).account_id);
    if (view === undefined) throw new GatewayError('not_found', `No job '${ctx.params.id}' for this account (jobs are kept for a while after they finish).`, { param: 'id' });
    ctx.set('X-Farebox-Job-Status', view.state);
    if (view.answer !== undefined) return writeAnswer(ctx, view.answer);
    ctx.status = 202;
    ctx.set('Retry-After', '1');
    ctx.body = jobStateBody(view);
  });
  return router;
}
