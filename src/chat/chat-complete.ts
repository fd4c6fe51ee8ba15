import { readReasoning, withoutReasoning } from '../providers/index.js';
import type { AdmittedChat } from './admit/chat-admit.js';
import type { ChatServiceDeps } from './chat-service-deps.js';
import { ChatSettlement } from './settle/chat-settlement.js';
import { completionWire, usageWire } from './wire/chat-wire.js';
import { ProducedText } from './wire/produced-text.js';
import { timedUpstreamCall } from './routes/upstream-call.js';

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
  const call = { upstreamModel: admitted.model.doc.upstream_model, body: admitted.body, signal };
  const result = await timedUpstreamCall(deps, admitted, settlement, () => admitted.chat.complete(call));
  const shown = readReasoning(admitted.body).exclude ? withoutReasoning(result) : result;
  const settled = await settlement.settle({ usage: result.usage, complete: true, produced: ProducedText.of(result.choices) });
  return completionWire(admitted.meta, shown.choices, usageWire(settled), shown.extra);
}
