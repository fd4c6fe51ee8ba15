import { toGatewayError } from '../../platform/errors/index.js';
import type { AdmittedChat } from '../admit/chat-admit.js';
import { BeforeFirstByteError } from '../../routing/index.js';
import type { ChatServiceDeps } from '../chat-service-deps.js';
import type { ChatSettlement } from '../settle/chat-settlement.js';

type Timed = Pick<ChatServiceDeps, 'metrics'>;

/**
 * Runs a non-streamed upstream call and records its latency. A failed or aborted call owes
 * nothing: the hold is released (a no-op while other routes may still answer) and the error
 * rethrown marked as before the first byte, so the route runner may fail over.
 */
export async function timedUpstreamCall<T>(deps: Timed, admitted: AdmittedChat, settlement: ChatSettlement, call: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    const result = await call();
    deps.metrics?.upstream(admitted.providerId, 'complete', (performance.now() - started) / 1000, true);
    admitted.firstByte?.();
    return result;
  } catch (err) {
    deps.metrics?.upstream(admitted.providerId, 'complete', (performance.now() - started) / 1000, false);
    await settlement.release();
    throw new BeforeFirstByteError(toGatewayError(err));
  }
}

/** A stream whose first upstream event arrived while the client was still there. */
export interface OpenedStream<T> {
  readonly first: IteratorResult<T>;
  readonly iterator: AsyncIterator<T>;
}

/**
 * Starts an upstream stream and waits for its first event, recording how long it took. A
 * failure before anything was sent owes nothing: the hold is released and the error rethrown,
 * so the front door still answers in JSON. A client gone by then also owes nothing: the
 * upstream is stopped, the hold released, and the result is undefined.
 */
export async function openUpstreamStream<T>(
  deps: Timed,
  admitted: AdmittedChat,
  settlement: ChatSettlement,
  stream: AsyncIterable<T>,
  clientGone: () => boolean,
): Promise<OpenedStream<T> | undefined> {
  const iterator = stream[Symbol.asyncIterator]();
  const started = performance.now();
  let first: IteratorResult<T>;
  try {
    first = await iterator.next();
    deps.metrics?.upstream(admitted.providerId, 'first_event', (performance.now() - started) / 1000, true);
  } catch (err) {
    deps.metrics?.upstream(admitted.providerId, 'first_event', (performance.now() - started) / 1000, false);
    await settlement.release();
    throw new BeforeFirstByteError(toGatewayError(err));
  }
  admitted.firstByte?.();
  if (!clientGone()) return { first, iterator };
  await iterator.return?.().catch(() => undefined);
  await settlement.release();
  return undefined;
}
