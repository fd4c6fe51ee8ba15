import { countTokensAsync } from '../billing/token-count-async.js';
import { toUsdNumber, type Nano } from '../billing/money.js';
import type { AdmittedChat } from '../chat/chat-admit.js';
import type { ChatServiceDeps } from '../chat/chat-service-deps.js';
import { ChatSettlement } from '../chat/chat-settlement.js';
import { toGatewayError } from '../errors/gateway-error.js';
import type { TokenUsage } from '../providers/chat/chat-types.js';
import type { JsonRecord } from '../providers/http/narrow.js';
import type { MessagesCapability, MessagesRelayCall, RelayedCounts } from '../providers/messages/messages-relay-types.js';

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
  const call: MessagesRelayCall = { upstreamModel: request.admitted.model.doc.upstream_model, body: request.body, signal };
  if (request.beta !== undefined) call.beta = request.beta;
  return call;
}

/**
 * Billed usage from the upstream's counts (prompt = input + cache writes + cache reads,
 * completion = output, thinking included): the same units the translated path bills. Counts
 * the upstream did not send yet (a stream cut short) fall back to the exact prompt count and
 * the tokens of the text relayed so far, as on the translated path.
 */
export async function billedUsage(admitted: AdmittedChat, counts: RelayedCounts, produced?: string): Promise<TokenUsage> {
  const promptTokens = counts.promptTokens ?? (await admitted.promptTokens());
  const counted = produced === undefined ? 0 : await countTokensAsync(produced);
  return { promptTokens, completionTokens: Math.max(counts.completionTokens ?? 0, counted), reasoningTokens: 0 };
}

/** An upstream `usage` object with the cost added, every other field unchanged. */
export function usageWithCost(usage: unknown, cost: Nano): JsonRecord {
  const base = typeof usage === 'object' && usage !== null ? (usage as JsonRecord) : {};
  return { ...base, cost: toUsdNumber(cost) };
}

/**
 * A non-streamed relayed call: the upstream's message is returned unchanged but for `model`
 * (the catalog id) and `usage.cost`, after the charge is durable. A failed or aborted call
 * charges nothing and frees the hold.
 */
export async function completeRelayed(deps: ChatServiceDeps, request: RelayedRequest, signal: AbortSignal): Promise<JsonRecord> {
  const { admitted } = request;
  const settlement = new ChatSettlement(deps, admitted);
  const started = performance.now();
  let answer;
  try {
    answer = await request.relay.complete(relayCall(request, signal));
    deps.metrics?.upstream(admitted.providerId, 'complete', (performance.now() - started) / 1000, true);
  } catch (err) {
    deps.metrics?.upstream(admitted.providerId, 'complete', (performance.now() - started) / 1000, false);
    await settlement.release();
    throw toGatewayError(err);
  }
  // An answer without output counts is billed by its content's tokens rather than for free.
  const content = answer.counts.completionTokens === undefined ? JSON.stringify(answer.message.content) : undefined;
  const { cost } = await settlement.settle(await billedUsage(admitted, answer.counts, content));
  return { ...answer.message, model: admitted.model.id, usage: usageWithCost(answer.message.usage, cost) };
}
