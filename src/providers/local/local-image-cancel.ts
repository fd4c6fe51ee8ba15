import { GatewayError } from '../../platform/errors/index.js';

/**
 * Stops local work between steps once the caller has given up. The job's result would be
 * discarded anyway, so the remaining CPU is better spent on other jobs.
 */
export function throwIfCancelled(signal: AbortSignal): void {
  if (signal.aborted) {
    throw new GatewayError('upstream_timeout', 'The request was cancelled before the local model finished', {
      cause: signal.reason,
    });
  }
}
