import type { Middleware } from 'koa';
import { classifyError, serializeError } from '../../platform/errors/index.js';
import { type KeepAliveClock, KeptAnswer } from './kept-answer.js';
import type { GatewayState } from '../state.js';

/**
 * Keeps slow answers alive behind proxies that end a request without a first byte in time
 * (Heroku's router: 30 s) or a silent connection (55 s; load balancers' idle timeouts): every
 * POST waiting longer than `earlyCommitMs` is committed (see {@link KeptAnswer}). Sits inside
 * the error boundary: an error after the commit is written here, in the body, and rethrown so
 * the boundary still logs it. Streams take their early commit and heartbeats from the clock
 * themselves (`ctx.state.keepAlive`).
 */
export function keepAlive(clock: KeepAliveClock): Middleware<GatewayState> {
  const enabled = clock.settings.earlyCommitMs > 0;
  return async function keepAliveMiddleware(ctx, next) {
    ctx.state.keepAlive = clock;
    if (!enabled || ctx.method !== 'POST') return next();
    const kept = new KeptAnswer(ctx, clock.settings);
    ctx.state.kept = kept;
    clock.add(kept);
    try {
      await next();
    } catch (thrown) {
      if (!kept.committed) throw thrown;
      const err = classifyError(thrown);
      await kept.finish(err.status, serializeError(err));
      throw thrown;
    } finally {
      clock.delete(kept);
    }
    if (kept.committed) await kept.finish(ctx.status, ctx.body);
  };
}
