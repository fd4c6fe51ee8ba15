import type { AdmittedChat } from '../../chat/chat-admit.js';
import type { ChatServiceDeps } from '../../chat/chat-service-deps.js';
import { ChatSettlement } from '../../chat/chat-settlement.js';
import { timedUpstreamCall } from '../../chat/upstream-call.js';
import type { TokenUsage } from '../../providers/chat/chat-types.js';
import { isRecord, type JsonRecord } from '../../providers/http/narrow.js';
import type { MessagesCapability, MessagesRelayCall } from '../../providers/messages/messages-relay-types.js';
import { requestedOutputLimit } from '../../chat/chat-estimate.js';
import { usageWire, type BilledUsage } from '../../chat/chat-wire.js';
import { ProducedText } from '../../chat/produced-text.js';

/** A Messages request admitted through the chat service, to be relayed as is. */
export interface RelayedRequest {
  readonly admitted: AdmittedChat;
  readonly relay: MessagesCapability;
  /** The client's request body as it arrived. */
  readonly body: Readonly<JsonRecord>;
  /** The client's `anthropic-beta` header, if it sent one. */
  readonly beta?: string;
}

/** The relay call of a request: the client's body, with the catalog's upstream model. */
export function relayCall(request: RelayedRequest, signal: AbortSignal): MessagesRelayCall {
  const { admitted } = request;
  // The output limit sent is the one held, never a larger one the client asked for.
  const body = { ...request.body, max_tokens: requestedOutputLimit(admitted.body, admitted.model) };
  const call: MessagesRelayCall = { upstreamModel: admitted.model.doc.upstream_model, body, signal };
  if (request.beta !== undefined) call.beta = request.beta;
  return call;
}

/**
 * The upstream's usage with its reasoning tokens: Anthropic counts thinking inside the output
 * without breaking it out, so the thinking relayed is counted here (at most the output).
 */
export async function withReasoning(usage: TokenUsage | undefined, produced: ProducedText): Promise<TokenUsage | undefined> {
  if (usage === undefined) return undefined;
  const { reasoning } = await produced.tokens();
  return { ...usage, reasoningTokens: Math.min(usage.completionTokens, reasoning) };
}

/** An upstream `usage` object with the billed cost and its lines added, every other field unchanged. */
export function usageWithCost(usage: unknown, billed: BilledUsage): JsonRecord {
  const base = typeof usage === 'object' && usage !== null ? (usage as JsonRecord) : {};
  const { cost, cost_details: lines } = usageWire(billed);
  return { ...base, cost, cost_details: lines };
}

/** What a relayed message produced: its thinking apart from everything else it says. */
function producedBy(message: JsonRecord): ProducedText {
  const produced = new ProducedText();
  const blocks = Array.isArray(message.content) ? (message.content as unknown[]) : [];
  for (const block of blocks) {
    const thinking = isRecord(block) && typeof block.thinking === 'string' ? block.thinking : undefined;
    if (thinking !== undefined) produced.addText(thinking, 'reasoning');
    else produced.addText(JSON.stringify(block));
  }
  return produced;
}

/**
 * A non-streamed relayed call: the upstream's message is returned unchanged but for `model`
 * (the catalog id) and `usage.cost` with its lines, after the charge is durable. A failed or
 * aborted call charges nothing and frees the hold; an answer without usage is billed by a
 * count (see settlementUsage).
 */
export async function completeRelayed(deps: ChatServiceDeps, request: RelayedRequest, signal: AbortSignal): Promise<JsonRecord> {
  const { admitted } = request;
  const settlement = new ChatSettlement(deps, admitted);
  const answer = await timedUpstreamCall(deps, admitted, settlement, () => request.relay.complete(relayCall(request, signal)));
  const produced = producedBy(answer.message);
  const settled = await settlement.settle({ usage: await withReasoning(answer.usage, produced), complete: true, produced });
  return { ...answer.message, model: admitted.model.id, usage: usageWithCost(answer.message.usage, settled) };
}
