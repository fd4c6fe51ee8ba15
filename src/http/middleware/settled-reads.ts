import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import type { SpoolingLedger } from '../../ledger/index.js';
import type { GatewayState } from '../state.js';

/**
 * Holds a read of money figures (balances, spend, ledger, records) until every charge already
 * acknowledged is in MongoDB. Under `LEDGER_ACK=local` a charge is acknowledged once spooled
 * and reaches MongoDB a drain later; without the wait, a client that reads its balance right
 * after a request could miss that request's charge. Under `commit` it costs nothing.
 */
export function settledReads(ledger: Pick<SpoolingLedger, 'settled'>): Middleware<GatewayState> {
  return async function settledRead(ctx, next) {
    if (ctx.method === 'GET' || ctx.method === 'HEAD') await ledger.settled();
    await next();
  };
}

/** The family's router behind {@link settledReads}: the wait runs only for its own routes. */
export function withSettledReads(router: Router<GatewayState>, ledger: Pick<SpoolingLedger, 'settled'>): Router<GatewayState> {
  const outer = new Router<GatewayState>();
  outer.use(settledReads(ledger));
  outer.use(router.routes());
  return outer;
}
