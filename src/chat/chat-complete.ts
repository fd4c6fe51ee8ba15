import { toGatewayError } from '../errors/gateway-error.js';
import { readReasoning, withoutReasoning } from '../providers/chat/reasoning-options.js';
import type { AdmittedChat } from './chat-admit.js';
import type { ChatServiceDeps } from './chat-service-deps.js';
import { ChatSettlement } from './chat-settlement.js';
import { completionWire, usageWire } from './chat-wire.js';

/**
 * Runs a non-streamed completion: calls the provider, charges the usage durably, and only
 * then returns the body that reports the cost. A failed or aborted call charges nothing
 * (the client got no answer) and frees the hold.
 */
export async function completeChat(
  deps: ChatServiceDeps,
  admitted: AdmittedChat,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const settlement = new ChatSettlement(deps, admitted);
  const started = performance.now();
  let result;
  try {
    result = await admitted.chat.complete({ upstreamModel: admitted.model.doc.upstream_model, body: admitted.body, signal });
    deps.metrics?.upstream(admitted.providerId, 'complete', (performance.now() - started) / 1000, true);
  } catch (err) {
    deps.metrics?.upstream(admitted.providerId, 'complete', (performance.now() - started) / 1000, false);
    await settlement.release();
    throw toGatewayError(err);
  }
  const shown = readReasoning(admitted.body).exclude ? withoutReasoning(result) : result;
  const { cost } = await settlement.settle(result.usage);
  return completionWire(admitted.meta, shown.choices, usageWire(result.usage, cost), shown.extra);
}
