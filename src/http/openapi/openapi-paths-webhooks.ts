import { createEndpointSchema, deliveryQuerySchema, patchEndpointSchema, webhookSettingsSchema } from '../../webhooks/index.js';
import { add, envelope, fromZod, queryOf, ref, type Paths } from './openapi-builders.js';
import type { Audience } from './openapi-paths-keys.js';

const withSecret = envelope(ref('WebhookEndpoint'), { secret: { type: 'string', description: 'The signing secret, shown this once' } });

/** An account's endpoint list and settings, at `list` and `settings`. */
export function webhookAccountPaths(paths: Paths, base: { list: string; settings: string }, who: Audience): void {
  add(paths, 'get', base.list, { ...who, summary: 'List webhook endpoints', response: envelope({ type: 'array', items: ref('WebhookEndpoint') }) });
  add(paths, 'post', base.list, { ...who, summary: 'Register a webhook endpoint', status: 201, body: fromZod(createEndpointSchema), response: withSecret });
  add(paths, 'get', base.settings, { ...who, summary: 'Read webhook settings', response: envelope(ref('WebhookSettings')) });
  add(paths, 'put', base.settings, { ...who, summary: 'Set the balance under which `balance.low` fires', body: fromZod(webhookSettingsSchema), response: envelope(ref('WebhookSettings')) });
}

/** One endpoint's routes under `prefix` (`/v1` or `/v1/admin`). */
export function webhookItemPaths(paths: Paths, prefix: string, who: Audience): void {
  const item = `${prefix}/webhooks/{webhook_id}`;
  add(paths, 'get', item, { ...who, summary: 'Read a webhook endpoint', response: envelope(ref('WebhookEndpoint')) });
  add(paths, 'patch', item, { ...who, summary: 'Update a webhook endpoint', body: fromZod(patchEndpointSchema), response: envelope(ref('WebhookEndpoint')) });
  add(paths, 'delete', item, { ...who, summary: 'Delete a webhook endpoint', response: envelope(ref('Deleted')) });
  add(paths, 'post', `${item}/rotate`, { ...who, summary: 'Rotate the signing secret', response: withSecret });
  add(paths, 'get', `${item}/deliveries`, {
    ...who,
    summary: 'List recent deliveries',
    parameters: queryOf(deliveryQuerySchema),
    response: envelope({ type: 'array', items: ref('WebhookDelivery') }),
  });
  add(paths, 'post', `${item}/deliveries/{delivery_id}/replay`, { ...who, summary: 'Send a delivery again', status: 202, response: envelope(ref('WebhookDelivery')) });
}

/** Webhooks of management keys (own account) and of the operator (any account). */
export function webhookPaths(paths: Paths, own: Audience, operator: Audience): void {
  webhookAccountPaths(paths, { list: '/v1/webhooks', settings: '/v1/webhook-settings' }, own);
  webhookItemPaths(paths, '/v1', own);
  webhookAccountPaths(paths, { list: '/v1/admin/accounts/{account_id}/webhooks', settings: '/v1/admin/accounts/{account_id}/webhook-settings' }, operator);
  webhookItemPaths(paths, '/v1/admin', operator);
}
