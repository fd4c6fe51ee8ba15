import type { CatalogModel } from '../../catalog/index.js';
import type { AdmittedChat } from '../admit/chat-admit.js';
import { completionId } from '../admit/chat-admit.js';
import type { ChatFront, FrontPlan } from '../chat-front.js';

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
 * The door's plan for an answer that is said again without an upstream call (an exact cache
 * hit): its translation of a chat answer, or, when the door would relay the request to a
 * provider speaking its wire natively, that relay plan, whose stream headers say such an
 * answer again in the vendor's own form. A plan reads only the request's ids, the answering
 * entry, whether it streams and the prompt's size, so that is all this request carries; no
 * route, hold or ticket exists for it, and nothing of the plan is run here.
 */
export async function replayPlan(front: ChatFront, facts: ReplayFacts): Promise<FrontPlan> {
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
  // A door's plan reads only the fields above (see the door fronts and relayPlan).
  return front.plan(replay as unknown as AdmittedChat);
}
