import type { AsyncAnswer, AsyncJobView, JobQueue, QueueName } from '../../../queue/index.js';
import { abortOnClose } from '../../edge/abort-on-close.js';
import { requireKey, type GatewayContext } from '../../state.js';

/** Who asks, and how a queue route's service runs for them: under `signal`, telling `onQueued`. */
export interface QueuedCall {
  readonly key: ReturnType<typeof requireKey>;
  readonly requestId: string;
  readonly signal: AbortSignal;
  readonly onQueued?: () => void;
}

/** True when the client asked for an asynchronous answer (RFC 7240 `Prefer: respond-async`). */
export function prefersAsync(ctx: GatewayContext): boolean {
  return ctx.get('prefer').split(/[,;]/).some((token) => token.trim().toLowerCase() === 'respond-async');
}

/** What `202` and a pending `GET /v1/jobs/{id}` show of a job. */
export function jobStateBody(view: AsyncJobView): Record<string, unknown> {
  return { id: view.id, object: 'job', status: view.state, kind: view.queue, created: view.created };
}

/** Writes a finished answer as the synchronous call would have. */
export function writeAnswer(ctx: GatewayContext, answer: AsyncAnswer): void {
  ctx.status = answer.status;
  ctx.type = 'application/json';
  ctx.body = answer.body;
}

/**
 * Serves a queue route: synchronously, with the job tied to the client's connection, or, when
 * the client prefers it, as `202 Accepted` once the job is queued, with `Location` naming where
 * its answer will be. Either way the same service runs with the same money rules; a refusal
 * before the job is queued is the same error in both.
 */
export async function serveQueued(ctx: GatewayContext, jobs: JobQueue, queue: QueueName, run: (call: QueuedCall) => Promise<AsyncAnswer>): Promise<void> {
  const key = requireKey(ctx);
  const requestId = ctx.state.requestId;
  if (prefersAsync(ctx)) {
    const view = await jobs.async.accept({ id: requestId, accountId: key.account_id, queue }, (signal, onQueued) => run({ key, requestId, signal, onQueued }));
    ctx.status = 202;
    ctx.set({ Location: `/v1/jobs/${requestId}`, 'Preference-Applied': 'respond-async', 'Retry-After': '1' });
    ctx.body = jobStateBody(view);
    return;
  }
  const client = abortOnClose(ctx.res);
  try {
    writeAnswer(ctx, await run({ key, requestId, signal: client.signal }));
  } finally {
    client.dispose();
  }
}
