import type { ChatFront, FrontPlan } from '../chat/index.js';
import type { RelayDoor } from './cache-entry.js';
import { capturingChatPlan, type CompleteAnswer } from './chat-capture.js';
import { capturingRelayPlan, type RelayedAnswer } from './relay-capture.js';

/** Who is told a request's complete answer, in the form its plan made it. */
export interface AnswerKeepers {
  /** An answer a door translated, in chat-completions form. */
  readonly chat: CompleteAnswer;
  /** An answer a door relayed, in its own API's form; absent for a door that never relays. */
  readonly relay?: { readonly door: RelayDoor; readonly keep: RelayedAnswer };
}

function capturingPlan(plan: FrontPlan, keepers: AnswerKeepers): FrontPlan {
  if (plan.kind === 'chat') return capturingChatPlan(plan, keepers.chat);
  return keepers.relay === undefined ? plan : capturingRelayPlan(plan, keepers.relay.door, keepers.relay.keep);
}

/**
 * The front with its complete answers told to `keepers`, streamed or not, translated or
 * relayed. Everything else about the front (body, holds, plan) is unchanged.
 */
export function capturingFront(front: ChatFront, keepers: AnswerKeepers): ChatFront {
  const captured: ChatFront = {
    chatBody: front.chatBody,
    plan: async (admitted) => capturingPlan(await front.plan(admitted), keepers),
  };
  return front.holdInputs === undefined ? captured : { ...captured, holdInputs: front.holdInputs.bind(front) };
}
