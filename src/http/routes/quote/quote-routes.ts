import { Router } from '@koa/router';
import { z } from 'zod';
import { type AccountService, capRooms, type KeyAuthenticator, type KeyDoc, type KeyReads } from '../../../accounts/index.js';
import {
  capCheckName,
  checkRooms,
  endpointWorstCase,
  holdQuote,
  QUOTE_ENDPOINTS,
  type QuoteDeps,
  type Rooms,
} from '../../../quote/index.js';
import { authenticate } from '../../middleware/authenticate.js';
import { ceilingFrom } from '../../middleware/cost-ceiling.js';
import { requireKey, type GatewayContext, type GatewayState } from '../../state.js';
import { validate } from '../../../platform/validation/index.js';
import { END_USER_HEADER, endUserOf } from '../../../ledger/index.js';
import { endUserInvalid, MAX_END_USER_LENGTH } from '../../../admission/index.js';
import type { LiveUsageReader } from '../account/account-routes.js';
import type { Middleware } from 'koa';

/** What the quote route needs. */
export interface QuoteRouteDeps extends QuoteDeps {
  readonly keyReads: KeyReads;
  readonly accounts: Pick<AccountService, 'get'>;
  readonly keyAuth: KeyAuthenticator;
  readonly rateLimit: Middleware<GatewayState>;
}

const quoteSchema = z.strictObject({
  endpoint: z.string().transform((v) => v.replace(/^\/?(v1\/)?/, '')).pipe(z.enum(QUOTE_ENDPOINTS)),
  body: z.record(z.string(), z.unknown()),
});

/**
 * The room each limit leaves now: balance (less this key's holds), the spend caps of the key,
 * its account and the named end user (the same figures `GET /v1/key` shows), and the ceilings.
 */
async function roomsOf(deps: QuoteRouteDeps, key: KeyDoc, live: LiveUsageReader, endUser: string | undefined, ownCeiling: bigint | undefined): Promise<Rooms> {
  const [account, usage] = await Promise.all([deps.accounts.get(key.account_id), live(key, endUser)]);
  const figures = await deps.keyReads.limitFigures(key, usage);
  const caps = Object.fromEntries(capRooms(figures).map((r) => [capCheckName(r.scope, r.window), r.room]));
  return {
    balance: account.balance - usage.heldUsd,
    ...caps,
    max_cost_per_request: key.limits.max_cost_per_request,
    max_cost: ownCeiling,
  };
}

/** The end user a quoted body names (as its request would: header, then `user` or `metadata.user_id`). */
function quotedEndUser(endpoint: string, header: string, body: Record<string, unknown>): string | undefined {
  const named = endUserOf(endpoint, header || undefined, body);
  if (named.id !== undefined && (named.id.length === 0 || named.id.length > MAX_END_USER_LENGTH)) {
    throw endUserInvalid(named.param === END_USER_HEADER ? named.param : `body.${named.param}`);
  }
  return named.id;
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
    const endpoint = `/v1/${input.endpoint}`;
    const endUser = quotedEndUser(endpoint, ctx.get(END_USER_HEADER), input.body);
    // The inner body's max_cost (or X-Max-Cost) is the request's ceiling, as on inference.
    const ceiling = ceilingFrom(input.body, ctx.get('x-max-cost') || undefined);
    const worst = await endpointWorstCase(deps, key, input.endpoint, input.body);
    const rooms = await roomsOf(deps, key, live, endUser, ceiling);
    // A free model needs no balance (admission lets a zero hold through on any balance).
    const { checks, fits, tightest, tightestLimit } = checkRooms(worst.estimate, worst.estimate === 0n ? { ...rooms, balance: undefined } : rooms);
    ctx.body = {
      data: {
        endpoint,
        ...holdQuote(worst.model, worst.estimate, worst.units, worst.lines),
        end_user: endUser ?? null,
        fits,
        checks,
        tightest: tightestLimit ?? null,
        largest_fit: fits || tightest === undefined ? null : worst.largest(tightest),
      },
    };
  });
  return router;
}
