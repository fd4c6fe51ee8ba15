import { toGatewayError } from '../errors/gateway-error.js';
import type { ChatServiceDeps } from './chat-service-deps.js';
import type { ChatSettlement } from './chat-settlement.js';

/**
 * Waits for a stream's first upstream event and records how long it took. A failure before
 * anything was sent owes nothing: the hold is released and the error rethrown as a
 * GatewayError, so the route still answers in JSON.
 */
export async function firstUpstreamEvent<T>(
  deps: Pick<ChatServiceDeps, 'metrics'>,
  providerId: string,
  settlement: ChatSettlement,
  iterator: AsyncIterator<T>,
): Promise<IteratorResult<T>> {
  const started = performance.now();
  try {
    const first = await iterator.next();
    deps.metrics?.upstream(providerId, 'first_event', (performance.now() - started) / 1000, true);
    return first;
  } catch (err) {
    deps.metrics?.upstream(providerId, 'first_event', (performance.now() - started) / 1000, false);
    await settlement.release();
    throw toGatewayError(err);
  }
}
