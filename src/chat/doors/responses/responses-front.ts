import type { AdmittedChat } from '../../admit/chat-admit.js';
import type { ChatFront, FrontPlan } from '../../chat-front.js';
import type { ChatServiceDeps } from '../../chat-service-deps.js';
import { GatewayError } from '../../../platform/errors/index.js';
import type { JsonRecord } from '../../../providers/index.js';
import { omittedToolsHeader } from '../omitted-tools.js';
import { relayPlan } from '../relay/relay-plan.js';
import { translatingSink } from '../stream-translator.js';
import { responsesHoldInputs } from './responses-hold.js';
import { completionToResponse, responseIds, type ResponseShell } from './responses-output.js';
import type { ResponsesRequest } from './responses-schema.js';
import { ResponsesStreamTranslator } from './responses-stream.js';
import { forcedHostedTool, responsesToChat, untranslatablePart } from './responses-to-chat.js';
import { translateTools, type TranslatedTools } from './responses-tools.js';
import { responsesWire } from './responses-wire.js';

/** A Responses request as it arrived: parsed, and the client's own body to relay unchanged. */
export interface ResponsesInput {
  readonly request: ResponsesRequest;
  readonly body: Readonly<JsonRecord>;
}

/** Refuses what a translation cannot carry: parts only the API itself reads, a forced hosted tool. */
function refuseUntranslatable(request: ResponsesRequest, tools: TranslatedTools): void {
  const part = untranslatablePart(request);
  if (part !== undefined) throw new GatewayError('invalid_request', `${part} needs a model served through the Responses API itself (a provider with responses_api)`, { param: part });
  const forced = forcedHostedTool(request);
  if (forced !== undefined) {
    throw new GatewayError('invalid_request', `tool_choice forces ${forced}, which only a model served through the Responses API itself can run (left out here: ${tools.omitted.join(', ') || 'none'})`, {
      param: 'tool_choice',
    });
  }
}

function translatedPlan(input: ResponsesInput, tools: TranslatedTools, admitted: AdmittedChat): FrontPlan {
  refuseUntranslatable(input.request, tools);
  const shell: ResponseShell = { ids: responseIds(admitted.requestId), createdAt: admitted.meta.created, model: admitted.model.id, request: input.request, callName: tools.callName };
  return {
    kind: 'chat',
    ...(tools.omitted.length > 0 ? { headers: omittedToolsHeader(tools.omitted) } : {}),
    answer: (completion) => completionToResponse(shell, completion),
    sink: (events) => translatingSink(events, new ResponsesStreamTranslator(shell), { 'x-request-id': admitted.requestId }),
  };
}

/**
 * The Responses API (stateless). Admission always sees the request mapped to a chat request
 * (same estimate, holds, settlement). A provider that speaks Responses natively then gets the
 * client's body as is and its answer goes back as is (only `model` and `usage.cost` change);
 * any other provider is reached through the chat adapters, translated both ways.
 */
export function responsesFront(deps: ChatServiceDeps, input: ResponsesInput): ChatFront {
  const tools = translateTools(input.request);
  return {
    chatBody: responsesToChat(input.request, tools),
    holdInputs: (providerId) => (deps.providers.get(providerId).responses === undefined ? {} : responsesHoldInputs(input.request)),
    plan(admitted) {
      const relay = deps.providers.get(admitted.providerId).responses;
      if (relay === undefined) return translatedPlan(input, tools, admitted);
      return relayPlan(deps, { admitted, relay, wire: responsesWire, body: input.body });
    },
  };
}
