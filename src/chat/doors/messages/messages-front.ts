import type { AdmittedChat } from '../../admit/chat-admit.js';
import type { ChatFront, FrontPlan } from '../../chat-front.js';
import type { ChatServiceDeps } from '../../chat-service-deps.js';
import { GatewayError } from '../../../platform/errors/index.js';
import type { JsonRecord } from '../../../providers/index.js';
import { translatingSink } from '../stream-translator.js';
import { messagesHoldInputs } from './messages-hold.js';
import { completionToMessage, messageId, messagesStreamHeaders } from './messages-output.js';
import { relayPlan } from '../relay/relay-plan.js';
import { messagesWire } from './messages-wire.js';
import type { MessagesRequest } from './messages-schema.js';
import { MessagesStreamTranslator } from './messages-stream.js';
import { isCustomTool, messagesToChat, serverToolTypes, untranslatableParam } from './messages-to-chat.js';
import { omittedToolsHeader } from '../omitted-tools.js';

/** A Messages request as it arrived: parsed, and the client's own body to relay unchanged. */
export interface MessagesInput {
  readonly request: MessagesRequest;
  readonly body: Readonly<JsonRecord>;
  /** The client's `anthropic-beta` header, if it sent one. */
  readonly beta?: string;
}

/** A server tool the client forces with `tool_choice` cannot be left out: the turn would mean something else. */
function refuseForcedServerTool(request: MessagesRequest): void {
  const choice = request.tool_choice;
  if (choice?.type !== 'tool') return;
  const forced = (request.tools ?? []).find((t) => t.name === choice.name && !isCustomTool(t));
  if (forced !== undefined) {
    throw new GatewayError('invalid_request', `tool_choice forces the server tool ${choice.name} (${String(forced.type)}), which only a model served through Anthropic's Messages API can run`, { param: 'tool_choice' });
  }
}

async function translatedPlan(input: MessagesInput, admitted: AdmittedChat): Promise<FrontPlan> {
  const untranslatable = untranslatableParam(input.request);
  if (untranslatable !== undefined) {
    throw new GatewayError('invalid_request', `${untranslatable} is a file only a model served through Anthropic's Messages API can read`, { param: untranslatable });
  }
  refuseForcedServerTool(input.request);
  const omitted = serverToolTypes(input.request);
  const id = messageId(admitted.requestId);
  // message_start reports the prompt's size before the upstream's own count arrives.
  const inputTokens = admitted.body.stream === true ? await admitted.promptTokens() : 0;
  const translator = (): MessagesStreamTranslator => new MessagesStreamTranslator({ id, model: admitted.model.id, inputTokens });
  return {
    kind: 'chat',
    ...(omitted.length > 0 ? { headers: omittedToolsHeader(omitted) } : {}),
    answer: (completion) => completionToMessage(id, admitted.model.id, completion),
    sink: (events) => translatingSink(events, translator(), messagesStreamHeaders(admitted.requestId)),
  };
}

/**
 * Anthropic's Messages API. Admission always sees the request mapped to a chat request (same
 * estimate, holds, settlement). A provider that speaks Messages natively then gets the
 * client's body as is and its answer goes back as is (only `model` and `usage.cost` change);
 * any other provider is reached through the chat adapters, translated both ways.
 */
export function messagesFront(deps: ChatServiceDeps, input: MessagesInput): ChatFront {
  return {
    chatBody: messagesToChat(input.request),
    // A provider without the relay never gets server tools or documents: the plan refuses them.
    holdInputs: (providerId) => (deps.providers.get(providerId).messages === undefined ? {} : messagesHoldInputs(input.request)),
    plan(admitted) {
      const relay = deps.providers.get(admitted.providerId).messages;
      if (relay === undefined) return translatedPlan(input, admitted);
      return relayPlan(deps, { admitted, relay, wire: messagesWire, body: input.body, ...(input.beta !== undefined ? { beta: input.beta } : {}) });
    },
  };
}
