import type { AdmittedChat } from '../../admit/chat-admit.js';
import { requestedOutputLimit } from '../../admit/chat-estimate.js';
import type { ChatServiceDeps } from '../../chat-service-deps.js';
import { ChatSettlement } from '../../settle/chat-settlement.js';
import type { ProducedText } from '../../wire/produced-text.js';
import { timedUpstreamCall } from '../../routes/upstream-call.js';
import type { JsonRecord, RelayCall, RelayCapability, TokenUsage } from '../../../providers/index.js';
import { usageWithCost, type RelayWire } from './relay-wire.js';

/** A request admitted through the chat service, to be relayed as is to a provider that speaks its API. */
export interface RelayedRequest {
  readonly admitted: AdmittedChat;
  readonly relay: RelayCapability;
  readonly wire: RelayWire;
  /** The client's request body as it arrived. */
  readonly body: Readonly<JsonRecord>;
  /** The client's `anthropic-beta` header, if it sent one. */
  readonly beta?: string;
}

/** The relay call of a request: the client's body, with the catalog's upstream model. */
export function relayCall(request: RelayedRequest, signal: AbortSignal): RelayCall {
  const { admitted } = request;
  // The output limit sent is the one held, never a larger one the client asked for.
  const body = { ...request.body, [request.wire.outputLimitField]: requestedOutputLimit(admitted.body, admitted.model) };
  const call: RelayCall = { upstreamModel: admitted.model.doc.upstream_model, body, signal };
  if (request.beta !== undefined) call.beta = request.beta;
  return call;
}

/**
 * The upstream's usage with its reasoning tokens: Anthropic counts thinking inside the output
 * without breaking it out, so when an upstream reports none, the reasoning relayed is counted
 * here (at most the output).
 */
export async function withReasoning(usage: TokenUsage | undefined, produced: ProducedText): Promise<TokenUsage | undefined> {
  if (usage === undefined || usage.reasoningTokens > 0) return usage;
  const { reasoning } = await produced.tokens();
  return { ...usage, reasoningTokens: Math.min(usage.completionTokens, reasoning) };
}

/**
 * A non-streamed relayed call: the upstream's answer is returned unchanged but for `model`
 * (the catalog id) and `usage.cost` with its lines, after the charge is durable. A failed or
 * aborted call charges nothing and frees the hold; an answer without usage is billed by a
 * count (see settlementUsage).
 */
export async function completeRelayed(deps: ChatServiceDeps, request: RelayedRequest, signal: AbortSignal): Promise<JsonRecord> {
  const { admitted, wire } = request;
  const settlement = new ChatSettlement(deps, admitted);
  const answer = await timedUpstreamCall(deps, admitted, settlement, () => request.relay.complete(relayCall(request, signal)));
  const produced = wire.produced(answer.message);
  const settled = await settlement.settle({ usage: await withReasoning(answer.usage, produced), complete: true, produced });
  return { ...answer.message, model: admitted.model.id, usage: usageWithCost(answer.message.usage, settled) };
}
