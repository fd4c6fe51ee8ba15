import type { ChatFront } from '../chat-front.js';
import type { ChatServiceDeps } from '../chat-service-deps.js';
import type { JsonRecord } from '../../providers/index.js';
import { validate } from '../../platform/validation/index.js';
import { chatCompletionsFront } from './chat-completions-front.js';
import { messagesFront } from './messages/messages-front.js';
import { messagesRequestSchema } from './messages/messages-schema.js';
import { responsesFront } from './responses/responses-front.js';
import { responsesRequestSchema } from './responses/responses-schema.js';

/** The chat front doors, as their paths below `/v1`. */
export type ChatDoor = 'chat/completions' | 'responses' | 'messages';

/** What a door reads of a request's headers. */
export interface DoorHeaders {
  /** Anthropic's `anthropic-beta` (features a Messages client opted into). */
  readonly beta?: string;
}

/**
 * The one mapping from a door's request (body and headers) to its {@link ChatFront}: the
 * routes serve it, the quote and the token counts bound it, so all three agree.
 */
export function doorFront(deps: ChatServiceDeps, door: ChatDoor, body: unknown, headers: DoorHeaders = {}): ChatFront {
  switch (door) {
    case 'chat/completions':
      return chatCompletionsFront(body);
    case 'responses':
      return responsesFront(deps, { request: validate(responsesRequestSchema, body), body: body as JsonRecord });
    case 'messages':
      // The body as the client sent it (validated here) is what a native provider gets.
      return messagesFront(deps, { request: validate(messagesRequestSchema, body), body: body as JsonRecord, ...(headers.beta !== undefined ? { beta: headers.beta } : {}) });
  }
}
