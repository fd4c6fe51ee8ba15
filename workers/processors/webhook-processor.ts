import { UnrecoverableError, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { WebhookSettings } from '../../src/platform/config/config.js';
import type { GuardedTarget } from '../../src/platform/security/ssrf-guard.js';
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

/**
 * Delivers one event to one endpoint, signed per Standard Webhooks. A non-2xx answer or a
 * failed connection throws, so BullMQ retries with its exponential backoff; the delivery log
 * records every attempt, and the last one marks the delivery failed. An endpoint deleted or
 * disabled meanwhile, or a URL the outbound rules now refuse, fails at once.
 */
export function webhookProcessor(ctx: WebhookProcessorContext): (job: Job<WebhookJobData>) => Promise<void> {
  return async function deliverWebhook(job) {
    const data = job.data;
    const endpoint = await ctx.c.webhookEndpoints.findOne({ _id: data.endpoint_id });
    if (!endpoint || endpoint.disabled) {
      await ctx.deliveries.record(data.delivery_id, { ok: false, responseCode: null, error: 'endpoint deleted or disabled', final: true });
      throw new UnrecoverableError('endpoint deleted or disabled');
    }
    const result = await sendWebhook({ url: endpoint.url, msgId: data.event_id, body: data.body, secrets: secretsOf(endpoint), timeoutMs: ctx.settings.timeoutMs, guard: ctx.guard });
    const lastTry = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const final = result.ok || result.permanent || lastTry;
    await ctx.deliveries.record(data.delivery_id, { ok: result.ok, responseCode: result.status, error: result.error, final });
    if (result.ok) return;
    ctx.log.info({ delivery_id: data.delivery_id, status: result.status, attempt: job.attemptsMade + 1, final }, 'webhook delivery failed');
    const message = result.error ?? 'delivery failed';
    throw result.permanent ? new UnrecoverableError(message) : new Error(message);
  };
}
