import { Router } from '@koa/router';
import { type LedgerReads, type RecordReads, toRecordView } from '../../../ledger/index.js';
import type { GatewayContext, GatewayState } from '../../state.js';
import { validate } from '../../../platform/validation/index.js';
import { adminRecordListSchema, adminUsageSchema, isRequestId, ledgerCsvSchema, recordsCsvSchema, usageRange } from '../requests/request-schemas.js';
import { RECORD_NOT_FOUND, requestIdParam } from '../requests/requests-routes.js';
import type { Clock } from '../../../billing/index.js';
import type { Logger } from 'pino';

/** What the operator's request-record and usage routes use. */
export interface AdminRequestDeps {
  readonly records: RecordReads;
  readonly ledgerReads: LedgerReads;
  readonly clock: Clock;
  readonly log: Logger;
}

function attachment(ctx: GatewayContext, filename: string): void {
  ctx.set('Content-Type', 'text/csv; charset=utf-8');
  ctx.set('Content-Disposition', `attachment; filename="${filename}"`);
  ctx.set('Cache-Control', 'no-store');
}

/** Operator routes on request records, usage and CSV exports (mounted under `/v1/admin`). */
export function adminRequestRoutes(deps: AdminRequestDeps): Router<GatewayState> {
  const router = new Router<GatewayState>();
  const onError = (err: Error) => deps.log.warn({ err }, 'CSV export ended early');

  router.get('/requests.csv', async (ctx) => {
    const q = validate(recordsCsvSchema, ctx.query);
    attachment(ctx, 'requests.csv');
    ctx.body = deps.records.csv({ ...q, accountId: q.account_id, keyId: q.key_id, endUser: q.end_user }, onError);
  });

  router.get('/ledger.csv', async (ctx) => {
    const q = validate(ledgerCsvSchema, ctx.query);
    attachment(ctx, 'ledger.csv');
    ctx.body = deps.ledgerReads.csv(q, q.account_id, onError);
  });

  router.get('/requests/:request_id', async (ctx) => {
    const id = requestIdParam(ctx);
    const record = isRequestId(id) ? await deps.records.find(id) : null;
    if (record === null) throw RECORD_NOT_FOUND(id);
    ctx.body = { data: toRecordView(record) };
  });

  router.get('/requests', async (ctx) => {
    const q = validate(adminRecordListSchema, ctx.query);
    const page = await deps.records.list({ ...q, accountId: q.account_id, keyId: q.key_id, endUser: q.end_user }, q.limit, q.cursor);
    ctx.body = { data: page.records.map(toRecordView), next_cursor: page.nextCursor };
  });

  router.get('/usage', async (ctx) => {
    const q = validate(adminUsageSchema, ctx.query);
    const range = usageRange(q, deps.clock());
    ctx.body = { data: await deps.records.usage(range, q.account_id, q.end_user) };
  });

  return router;
}
