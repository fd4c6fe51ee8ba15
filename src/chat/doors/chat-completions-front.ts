import type { ChatFront, TranslatedPlan } from '../chat-front.js';
import { chatChunkSink } from '../wire/chunk-sink.js';

const PLAN: TranslatedPlan = { kind: 'chat', answer: (completion) => completion, sink: chatChunkSink };

/** Chat Completions: the chat path's own wire format, nothing to translate. */
export function chatCompletionsFront(body: unknown): ChatFront {
  return { chatBody: body, plan: () => PLAN };
}
