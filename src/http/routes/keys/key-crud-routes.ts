import { Router } from '@koa/router';
import { createKeySchema, type KeyService, patchKeySchema, toKeyView } from '../../../accounts/index.js';
import type { GatewayContext, GatewayState } from '../../state.js';
import { validate } from '../../../platform/validation/index.js';

/** What the key routes use. */
export interface KeyCrudDeps {
  readonly keys: KeyService;
}

/** Decides which account a request may act on: the caller's own, or any (operator). */
export type AccountScope = (ctx: GatewayContext) => string | undefined;

function keyId(ctx: GatewayContext): string {
  return String((ctx as GatewayContext & { params: Record<string, string> }).params.key_id);
}

/**
 * Key read/update/delete/rotate, shared by the operator API (any account) and management
 * keys (their own account only: other accounts' keys answer 404).
 */
export function keyCrudRoutes(deps: KeyCrudDeps, scope: AccountScope): Router<GatewayState> {
  const router = new Router<GatewayState>();
  router.get('/keys/:key_id', async (ctx) => {
    ctx.body = { data: toKeyView(await deps.keys.get(keyId(ctx), scope(ctx))) };
  });
  router.patch('/keys/:key_id', async (ctx) => {
    const body = validate(patchKeySchema, ctx.request.body);
    ctx.body = { data: toKeyView(await deps.keys.patch(keyId(ctx), body, scope(ctx))) };
  });
  router.delete('/keys/:key_id', async (ctx) => {
    await deps.keys.remove(keyId(ctx), scope(ctx));
    ctx.body = { data: { key_id: keyId(ctx), deleted: true } };
  });
  router.post('/keys/:key_id/rotate', async (ctx) => {
    const minted = await deps.keys.rotate(keyId(ctx), scope(ctx));
    ctx.body = { data: toKeyView(minted.doc), key: minted.raw };
  });
  return router;
}

/** Management-key routes for listing and minting keys of the caller's own account. */
export function ownKeysRoutes(deps: KeyCrudDeps, scope: (ctx: GatewayContext) => string): Router<GatewayState> {
  const router = new Router<GatewayState>();
  router.get('/keys', async (ctx) => {
    ctx.body = { data: (await deps.keys.list(scope(ctx))).map(toKeyView) };
  });
  router.post('/keys', async (ctx) => {
    const body = validate(createKeySchema, ctx.request.body);
    const minted = await deps.keys.mint(scope(ctx), body);
    ctx.status = 201;
    ctx.body = { data: toKeyView(minted.doc), key: minted.raw };
  });
  return router;
}
