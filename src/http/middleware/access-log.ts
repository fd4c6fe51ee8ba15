import type { Logger } from 'pino';
import type { GatewayContext } from '../state.js';
import { reportedStatus } from './client-closed.js';

/**
 * A 503 carries Retry-After: a designed refusal while a store fails over or charges are
 * spooled, which an operator follows at warn; any other 5xx is a fault of the gateway.
 */
export function levelOf(status: number): 'info' | 'warn' | 'error' {
  if (status === 503) return 'warn';
  return status >= 500 ? 'error' : 'info';
}

/**
 * Writes the one log line of a finished request (started at `started`, a `performance.now()`
 * reading); never headers or bodies, which carry keys. Called by the edge middleware.
 */
export function logAccess(log: Logger, ctx: GatewayContext, started: number): void {
  const status = reportedStatus(ctx);
  const level = levelOf(status);
  if (!log.isLevelEnabled(level)) return;
  log[level]({
    request_id: ctx.state.requestId,
    method: ctx.method,
    path: ctx.path,
    status,
    key_id: ctx.state.key?._id,
    ms: Math.round((performance.now() - started) * 10) / 10,
  });
}
