import { Router } from '@koa/router';
import type { Logger } from 'pino';
import type { KeyAuthenticator } from '../../../accounts/index.js';
import { type ReceiptSigner, type RecordReads, signStoredReceipt, toReceiptView } from '../../../ledger/index.js';
import { authenticate } from '../../middleware/authenticate.js';
import { requireKey, type GatewayState } from '../../state.js';
import { validate } from '../../../platform/validation/index.js';
import { isRequestId, usageSchema } from '../requests/request-schemas.js';
import { RECORD_NOT_FOUND, requestIdParam } from '../requests/requests-routes.js';

/** What the receipt routes use. */
export interface ReceiptRouteDeps {
  readonly records: RecordReads;
  readonly keyAuth: KeyAuthenticator;
  readonly receipts: ReceiptSigner;
  readonly log: Logger;
}

/**
 * Receipts: the public keys that verify them (no auth, JWKS shape so JOSE libraries read it),
 * one request's receipt, signed as it is handed out (any key of the owning account), and an account's export as
 * JSON lines (management key).
 */
export function receiptsRoutes(deps: ReceiptRouteDeps): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/v1' });

  router.get('/receipts/keys', async (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = deps.receipts.jwks();
  });

  router.get('/requests/:request_id/receipt', authenticate(deps.keyAuth), async (ctx) => {
    const id = requestIdParam(ctx);
    const stored = isRequestId(id) ? await deps.records.receipt(id, requireKey(ctx).account_id) : undefined;
    if (!stored) throw RECORD_NOT_FOUND(id);
    ctx.body = { data: toReceiptView(signStoredReceipt(stored, deps.receipts)) };
  });

  router.get('/receipts/export', authenticate(deps.keyAuth, ['management']), async (ctx) => {
    const range = validate(usageSchema, ctx.query);
    ctx.set('Content-Type', 'application/x-ndjson; charset=utf-8');
    ctx.set('Cache-Control', 'no-store');
    ctx.body = deps.records.receipts(deps.receipts, requireKey(ctx).account_id, range, (err) => deps.log.warn({ err }, 'receipt export ended early'));
  });

  return router;
}
