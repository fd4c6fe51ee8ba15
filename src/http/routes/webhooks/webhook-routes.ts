import { Router } from '@koa/router';
import { parseUsdAmount } from '../../../billing/index.js';
import { validate } from '../../../platform/validation/index.js';
import {
  createEndpointSchema, deliveryQuerySchema, patchEndpointSchema, toDeliveryView, toEndpointView, toSettingsView, webhookSettingsSchema,
  type Webhooks,
} from '../../../webhooks/index.js';
import type { GatewayContext, GatewayState } from '../../state.js';

/** What the webhook routes use. */
export interface WebhookRouteDeps {
  readonly webhooks: Webhooks;
}

/** The account a request acts on: the caller's own, or (operator) any. */
export type WebhookScope = (ctx: GatewayContext) => string | undefined;

function param(ctx: GatewayContext, name: string): string {
  return String((ctx as GatewayContext & { params: Record<string, string> }).params[name]);
}

/**
 * One endpoint's routes (`/webhooks/:webhook_id`, its secret rotation, deliveries and replays),
 * shared by the operator API (any account) and management keys (own account; others' 404).
 */
export function webhookItemRoutes(deps: WebhookRouteDeps, scope: WebhookScope): Router<GatewayState> {
  const { endpoints, deliveries } = deps.webhooks;
  const router = new Router<GatewayState>();
  const id = (ctx: GatewayContext) => param(ctx, 'webhook_id');
  router.get('/webhooks/:webhook_id', async (ctx) => {
    ctx.body = { data: toEndpointView(await endpoints.get(id(ctx), scope(ctx))) };
  });
  router.patch('/webhooks/:webhook_id', async (ctx) => {
    const body = validate(patchEndpointSchema, ctx.request.body);
    ctx.body = { data: toEndpointView(await endpoints.patch(id(ctx), body, scope(ctx))) };
  });
  router.delete('/webhooks/:webhook_id', async (ctx) => {
    await endpoints.remove(id(ctx), scope(ctx));
    ctx.body = { data: { id: id(ctx), deleted: true } };
  });
  router.post('/webhooks/:webhook_id/rotate', async (ctx) => {
    const rotated = await endpoints.rotate(id(ctx), scope(ctx));
    ctx.body = { data: toEndpointView(rotated.doc), secret: rotated.secret };
  });
  router.get('/webhooks/:webhook_id/deliveries', async (ctx) => {
    const query = validate(deliveryQuerySchema, ctx.query);
    const endpoint = await endpoints.get(id(ctx), scope(ctx));
    ctx.body = { data: (await deliveries.list(endpoint._id, query.limit, query.status)).map(toDeliveryView) };
  });
  router.post('/webhooks/:webhook_id/deliveries/:delivery_id/replay', async (ctx) => {
    const endpoint = await endpoints.get(id(ctx), scope(ctx));
    ctx.status = 202;
    ctx.body = { data: toDeliveryView(await deliveries.replay(param(ctx, 'delivery_id'), endpoint._id)) };
  });
  return router;
}

/**
 * An account's endpoint list, registration and settings (`balance_low_usd`), at `base`
 * (`/webhooks` for management keys, `/accounts/:account_id/webhooks` for the operator).
 */
export function webhookAccountRoutes(deps: WebhookRouteDeps, base: { list: string; settings: string }, account: (ctx: GatewayContext) => string): Router<GatewayState> {
  const { endpoints } = deps.webhooks;
  const router = new Router<GatewayState>();
  router.get(base.list, async (ctx) => {
    ctx.body = { data: (await endpoints.list(account(ctx))).map(toEndpointView) };
  });
  router.post(base.list, async (ctx) => {
    const body = validate(createEndpointSchema, ctx.request.body);
    const created = await endpoints.create(account(ctx), body);
    ctx.status = 201;
    ctx.body = { data: toEndpointView(created.doc), secret: created.secret };
  });
  router.get(base.settings, async (ctx) => {
    ctx.body = { data: toSettingsView(await endpoints.balanceLow(account(ctx))) };
  });
  router.put(base.settings, async (ctx) => {
    const body = validate(webhookSettingsSchema, ctx.request.body);
    const threshold = body.balance_low_usd === null ? null : parseUsdAmount(body.balance_low_usd, 'balance_low_usd');
    await endpoints.setBalanceLow(account(ctx), threshold);
    ctx.body = { data: toSettingsView(threshold) };
  });
  return router;
}
