import { Router } from '@koa/router';
import { GatewayError } from '../../../platform/errors/index.js';
import { type RecordReads, toRecordView } from '../../../ledger/index.js';
import { authenticate } from '../../middleware/authenticate.js';
import { requireKey, type GatewayContext, type GatewayState } from '../../state.js';
import { validate } from '../../../platform/validation/index.js';
import { isRequestId, recordListSchema, usageRange, usageSchema } from './request-schemas.js';
import type { KeyAuthenticator } from '../../../accounts/index.js';
import type { Clock } from '../../../billing/index.js';

/** What the request-record routes of a key use. */
export interface RequestsRouteDeps {
  readonly records: RecordReads;
  readonly keyAuth: KeyAuthenticator;
  readonly clock: Clock;
}

/** The `:request_id` of a lookup route. */
export function requestIdParam(ctx: GatewayContext): string {
  return String((ctx as GatewayContext & { params: Record<string, string> }).params.request_id);
}

/** The same answer for "no such record" and "not yours", so ids of others cannot be probed. */
export const RECORD_NOT_FOUND = (id: string) => new GatewayError('not_found', `No request record '${id.slice(0, 100)}'`);

/**
 * The account's view of its request records and usage: lookup by id (any key of the account),
 * lists (a management key sees the whole account, an inference key only its own requests)
 * and usage per day and model (management keys), of the whole account or one end user.
 */
export function requestsRoutes(deps: RequestsRouteDeps): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/v1' });
  const anyKey = authenticate(deps.keyAuth);

  router.get('/requests/:request_id', anyKey, async (ctx) => {
    const id = requestIdParam(ctx);
    const record = isRequestId(id) ? await deps.records.find(id, requireKey(ctx).account_id) : null;
    if (record === null) throw RECORD_NOT_FOUND(id);
    ctx.body = { data: toRecordView(record) };
  });

  router.get('/requests', anyKey, async (ctx) => {
    const q = validate(recordListSchema, ctx.query);
    const key = requireKey(ctx);
    if (key.role !== 'management' && q.key_id !== undefined && q.key_id !== key._id) {
      throw new GatewayError('permission_denied', 'An inference key lists only its own requests; use a management key for others.', { param: 'key_id' });
    }
    const keyId = key.role === 'management' ? q.key_id : key._id;
    const page = await deps.records.list({ ...q, accountId: key.account_id, keyId, endUser: q.end_user }, q.limit, q.cursor);
    ctx.body = { data: page.records.map(toRecordView), next_cursor: page.nextCursor };
  });

  router.get('/usage', authenticate(deps.keyAuth, ['management']), async (ctx) => {
    const q = validate(usageSchema, ctx.query);
    const range = usageRange(q, deps.clock());
    const accountId = requireKey(ctx).account_id;
    if (q.account_id !== undefined && q.account_id !== accountId) {
      throw new GatewayError('permission_denied', "A management key reads only its own account's usage; the operator API reads any account.", { param: 'account_id' });
    }
    ctx.body = { data: await deps.records.usage(range, accountId, q.end_user) };
  });

  return router;
}
