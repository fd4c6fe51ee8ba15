import { Router } from '@koa/router';
import { z } from 'zod';
import type { KeyDoc } from '../../../accounts/keys/key-types.js';
import { endpointWorstCase, QUOTE_ENDPOINTS, type QuoteDeps } from '../../../quote/endpoint-worst-case.js';
import { holdQuote } from '../../../quote/hold-quote.js';
import { checkRooms, type Rooms } from '../../../quote/quote-checks.js';
import type { AccountService } from '../../../accounts/account-service.js';
import type { KeyCollections } from '../../../accounts/keys/key-collections.js';
import type { KeyAuthenticator } from '../../../accounts/keys/key-auth.js';
import { authenticate } from '../../middleware/authenticate.js';
import { ceilingFrom } from '../../middleware/cost-ceiling.js';
import { requireKey, type GatewayContext, type GatewayState } from '../../state.js';
import { validate } from '../../../platform/validation/validate.js';
import { periodSpend } from '../../../accounts/keys/key-info.js';
import type { LiveUsageReader } from '../account/account-routes.js';
import type { Middleware } from 'koa';

/** What the quote route needs. */
export interface QuoteRouteDeps extends QuoteDeps {
  readonly c: KeyCollections;
  readonly accounts: Pick<AccountService, 'get'>;
  readonly keyAuth: KeyAuthenticator;
  readonly rateLimit: Middleware<GatewayState>;
}

const quoteSchema = z.strictObject({
  endpoint: z.string().transform((v) => v.replace(/^\/?(v1\/)?/, '')).pipe(z.enum(QUOTE_ENDPOINTS)),
  body: z.record(z.string(), z.unknown()),
});

/** The room each limit leaves now: balance (less this key's holds), spend caps, ceilings. */
async function roomsOf(deps: QuoteRouteDeps, key: KeyDoc, live: LiveUsageReader, ownCeiling: bigint | undefined): Promise<Rooms> {
  const [account, usage, spend, fresh] = await Promise.all([
    deps.accounts.get(key.account_id),
    live(key),
    periodSpend(deps.c, key._id, deps.clock()),
    deps.c.keys.findOne({ _id: key._id }, { projection: { spend: 1 } }),
  ]);
  const held = usage.heldUsd;
  const caps = key.limits.spend_cap ?? {};
  const lifetime = fresh?.spend ?? key.spend;
  return {
    balance: account.balance - held,
    spend_cap_lifetime: caps.lifetime === undefined ? undefined : caps.lifetime - lifetime - held,
    spend_cap_day: caps.day === undefined ? undefined : caps.day - spend.day - held,
    spend_cap_week: caps.week === undefined ? undefined : caps.week - spend.week - held,
    spend_cap_month: caps.month === undefined ? undefined : caps.month - spend.month - held,
    max_cost_per_request: key.limits.max_cost_per_request,
    max_cost: ownCeiling,
  };
}

/**
 * `POST /v1/quote` `{endpoint, body}`: the worst-case hold of that request, line by line, its
 * price version, whether it fits the balance and each limit now, and what would fit when it
 * does not. Nothing is called upstream, held or charged; authenticated and rate-limited like
 * inference.
 */
export function quoteRoutes(deps: QuoteRouteDeps, live: LiveUsageReader): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/v1' });
  router.post('/quote', authenticate(deps.keyAuth, ['inference']), deps.rateLimit, async (ctx: GatewayContext) => {
    const input = validate(quoteSchema, ctx.request.body);
    const key = requireKey(ctx);
    // The inner body's max_cost (or X-Max-Cost) is the request's ceiling, as on inference.
    const ceiling = ceilingFrom(input.body, ctx.get('x-max-cost') || undefined);
    const worst = await endpointWorstCase(deps, key, input.endpoint, input.body);
    const rooms = await roomsOf(deps, key, live, ceiling);
    // A free model needs no balance (admission lets a zero hold through on any balance).
    const { checks, fits, tightest } = checkRooms(worst.estimate, worst.estimate === 0n ? { ...rooms, balance: undefined } : rooms);
    ctx.body = {
      data: {
        endpoint: `/v1/${input.endpoint}`,
        ...holdQuote(worst.model, worst.estimate, worst.units, worst.lines),
        fits,
        checks,
        largest_fit: fits || tightest === undefined ? null : worst.largest(tightest),
      },
    };
  });
  return router;
}
