import type { CatalogModel } from '../../catalog/index.js';
import type { AdmittedChat } from '../admit/chat-admit.js';
import { completionId } from '../admit/chat-admit.js';
import type { ChatFront, TranslatedPlan } from '../chat-front.js';

/** What a door needs to know to say an answer again that no route is asked for. */
export interface ReplayFacts {
  /** The request being answered now (its ids name this request, not the stored one). */
  readonly requestId: string;
  /** Unix seconds. */
  readonly created: number;
  /** The catalog entry that answered when the answer was made. */
  readonly model: CatalogModel;
  readonly stream: boolean;
  /** The prompt's token count as the stored answer reported it. */
  readonly promptTokens: number;
}

/**
 * The door's own translation of a chat answer, for an answer that is said again without an
 * upstream call (an exact cache hit). A translated plan reads only the request's ids, the
 * answering entry, whether it streams and the prompt's size, so that is all this request
 * carries; no route, hold or ticket exists for it. Undefined when the door would relay the
 * request to a provider speaking its wire natively: such answers are not in chat form.
 */
export async function replayPlan(front: ChatFront, facts: ReplayFacts): Promise<TranslatedPlan | undefined> {
  const body = typeof front.chatBody === 'object' && front.chatBody !== null ? front.chatBody : {};
  const replay = {
    requestId: facts.requestId,
    meta: { id: completionId(facts.requestId), created: facts.created, model: facts.model.id },
    entryId: facts.model.id,
    model: facts.model,
    providerId: facts.model.doc.provider,
    body: { ...body, stream: facts.stream },
    promptTokens: () => Promise.resolve(facts.promptTokens),
  };
  // The plan of a translating door reads only the fields above (see the door fronts).
  const plan = await front.plan(replay as unknown as AdmittedChat);
  return plan.kind === 'chat' ? plan : undefined;
}
