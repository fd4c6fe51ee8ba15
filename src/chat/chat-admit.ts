import type { CatalogModel } from '../catalog/model-types.js';
import { resolveModel } from '../catalog/resolve-model.js';
import { GatewayError } from '../errors/gateway-error.js';
import { validate } from '../http/validate.js';
import type { KeyDoc } from '../keys/key-types.js';
import type { AdmissionTicket } from '../limits/admission-types.js';
import type { DeferredRate } from '../limits/deferred-rate.js';
import type { ChatCapability, ChatRequestBody } from '../providers/chat/chat-types.js';
import { estimateChatCostAsync } from './chat-estimate.js';
import { countMessageTokensAsync } from '../billing/token-count-async.js';
import { chatRequestSchema, toChatRequestBody } from './chat-schema.js';
import type { ChatServiceDeps } from './chat-service-deps.js';
import type { CompletionMeta } from './chat-wire.js';

/** A validated chat request that admission let in: it holds money until settled. */
export interface AdmittedChat {
  readonly requestId: string;
  readonly meta: CompletionMeta;
  readonly body: ChatRequestBody;
  readonly model: CatalogModel;
  readonly providerId: string;
  readonly chat: ChatCapability;
  readonly ticket: AdmissionTicket;
  /**
   * Prompt tokens for billing when an upstream reports no usage: the exact (linear) count,
   * made only when needed; the hold used a cheaper upper bound.
   */
  readonly promptTokens: () => Promise<number>;
}

/** `chatcmpl-…` id derived from the request id, so responses and logs correlate. */
export function completionId(requestId: string): string {
  return `chatcmpl-${requestId.replace(/^req_/, '')}`;
}

/**
 * Validates, resolves the model and its provider, and admits the request with a hold of its
 * worst-case cost. Order (DESIGN §4.4): body → model (404/400) → allowlist and free tier
 * (403) → provider (503) → estimate → caps (403) → balance (402) → stream slot (429). The
 * estimate comes after every cheap refusal and is linear in the prompt's size. Nothing is
 * held when any step before admission fails. A pending RPM check (`rate`) runs inside
 * admission's script; when an earlier step refuses, the caller runs it (see DeferredRate).
 */
export async function admitChat(deps: ChatServiceDeps, key: KeyDoc, requestId: string, rawBody: unknown, rate?: DeferredRate): Promise<AdmittedChat> {
  const body = toChatRequestBody(validate(chatRequestSchema, rawBody));
  const model = resolveModel(deps.catalog, body.model, 'chat');
  await deps.admission.authorize(key, model);
  const providerId = model.doc.provider;
  const chat = deps.providers.get(providerId).chat;
  if (chat === undefined) throw new GatewayError('upstream_error', `Provider "${providerId}" cannot serve chat models`);
  const { estimate, fit } = await estimateChatCostAsync(body, model, chat.outputLimit?.(body));
  const ticket = await deps.admission.admit({ requestId, key, model, estimate, fit, stream: body.stream === true, rate });
  let counted: Promise<number> | undefined;
  const promptTokens = (): Promise<number> => (counted ??= countMessageTokensAsync(body.messages));
  const meta = { id: completionId(requestId), created: Math.floor(deps.clock().getTime() / 1000), model: model.id };
  return { requestId, meta, body, model, providerId, chat, ticket, promptTokens };
}
