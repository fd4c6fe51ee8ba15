import type { ChatFront } from '../../chat/chat-front.js';
import { translatingSink } from '../stream-translator.js';
import { completionToResponse, responseIds, type ResponseShell } from './responses-output.js';
import type { ResponsesRequest } from './responses-schema.js';
import { ResponsesStreamTranslator } from './responses-stream.js';
import { responsesToChat } from './responses-to-chat.js';

/** The Responses API (stateless): mapped to a chat request, answered in its own shapes and events. */
export function responsesFront(request: ResponsesRequest): ChatFront {
  return {
    chatBody: responsesToChat(request),
    plan(admitted) {
      const shell: ResponseShell = { ids: responseIds(admitted.requestId), createdAt: admitted.meta.created, model: admitted.model.id, request };
      return {
        kind: 'chat',
        answer: (completion) => completionToResponse(shell, completion),
        sink: (events) => translatingSink(events, new ResponsesStreamTranslator(shell), { 'x-request-id': admitted.requestId }),
      };
    },
  };
}
