import type { GatewayContext } from '../state.js';
import type { Metrics } from '../../metrics/index.js';
import { reportedStatus } from './client-closed.js';

/** Route label for requests no router matched, so unknown paths do not create series. */
const UNMATCHED = 'unmatched';

/**
 * Counts a finished request by method, matched route pattern (never the raw path, whose ids
 * would make series unbounded) and final status. Called by the edge middleware outside the
 * error boundary, so error statuses are counted as sent.
 */
export function countRequest(metrics: Metrics, ctx: GatewayContext): void {
  const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  metrics.request(ctx.method, typeof route === 'string' ? route : UNMATCHED, reportedStatus(ctx));
}
