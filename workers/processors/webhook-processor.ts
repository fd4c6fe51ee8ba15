import { UnrecoverableError, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { WebhookSettings } from '../../src/platform/config/index.js';
import type { GuardedTarget } from '../../src/platform/security/index.js';
import { inLinkedSpan, type SpanHandle } from '../../src/platform/tracing/index.js';
import { WEBHOOK_QUEUE } from '../../src/queue/index.js';
import { sendWebhook, type DeliveryLog, type WebhookCollections, type WebhookJobData } from '../../src/webhooks/index.js';

/** What the delivery processor needs. */
export interface WebhookProcessorContext {
  readonly c: WebhookCollections;
  readonly deliveries: DeliveryLog;
  readonly settings: Pick<WebhookSettings, 'timeoutMs'>;
  readonly guard: (url: string) => Promise<GuardedTarget>;
  readonly log: Logger;
}

/** The secrets a delivery is signed with: the current one, and a rotated-out one still in grace. */
function secretsOf(endpoint: { secret: string; previous_secret?: string; previous_until?: Date }): string[] {
  const previous = endpoint.previous_secret !== undefined && endpoint.previous_until !== undefined && endpoint.previous_until > new Date();
  return previous ? [endpoint.secret, endpoint.previous_secret as string] : [endpoint.secret];
}

/** What a delivery's span says about it: ids, event type and try; never the body or the URL's secrets. */
function spanAttributes(job: Job<WebhookJobData>) {
  return {
    'messaging.system': 'bullmq',
    'messaging.operation.type': 'process',
    'messaging.destination.name': WEBHOOK_QUEUE,
    'messaging.message.id': job.id,
    'farebox.webhook.delivery_id': job.data.delivery_id,
    'farebox.webhook.event_id': job.data.event_id,
    'farebox.webhook.event_type': job.data.type,
    'farebox.webhook.attempt': job.attemptsMade + 1,
    'farebox.account_id': job.data.account_id,
  };
}

/** One try of a delivery (see {@link webhookProcessor}). */
async function deliver(ctx: WebhookProcessorContext, job: Job<WebhookJobData>, span: SpanHandle | undefined): Promise<void> {
  const data = job.data;
  const endpoint = await ctx.c.webhookEndpoints.findOne({ _id: data.endpoint_id });
  if (!endpoint || endpoint.disabled) {
    await ctx.deliveries.record(data.delivery_id, { ok: false, responseCode: null, error: 'endpoint deleted or disabled', final: true });
    throw new UnrecoverableError('endpoint deleted or disabled');
  }
  const result = await sendWebhook({ url: endpoint.url, msgId: data.event_id, body: data.body, secrets: secretsOf(endpoint), timeoutMs: ctx.settings.timeoutMs, guard: ctx.guard });
  const lastTry = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
  const final = result.ok || result.permanent || lastTry;
  span?.set({ 'http.response.status_code': result.status ?? undefined, 'farebox.webhook.final': final });
  await ctx.deliveries.record(data.delivery_id, { ok: result.ok, responseCode: result.status, error: result.error, final });
  if (result.ok) return;
  ctx.log.info({ delivery_id: data.delivery_id, status: result.status, attempt: job.attemptsMade + 1, final }, 'webhook delivery failed');
  const message = result.error ?? 'delivery failed';
  throw result.permanent ? new UnrecoverableError(message) : new Error(message);
}

/**
 * Delivers one event to one endpoint, signed per Standard Webhooks. A non-2xx answer or a
 * failed connection throws, so BullMQ retries with its exponential backoff; the delivery log
 * records every attempt, and the last one marks the delivery failed. An endpoint deleted or
 * disabled meanwhile, or a URL the outbound rules now refuse, fails at once. Each try is a
 * span of its own, linked to the trace that queued the delivery when the job carries one.
 */
export function webhookProcessor(ctx: WebhookProcessorContext): (job: Job<WebhookJobData>) => Promise<void> {
  return async function deliverWebhook(job) {
    await inLinkedSpan(`deliver ${WEBHOOK_QUEUE}`, job.data.trace, spanAttributes(job), (span) => deliver(ctx, job, span));
  };
}
