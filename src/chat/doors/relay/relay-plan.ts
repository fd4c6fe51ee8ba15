import type { RelayPlan } from '../../chat-front.js';
import type { ChatServiceDeps } from '../../chat-service-deps.js';
import { completeRelayed, type RelayedRequest } from './relay-complete.js';
import { streamRelayed } from './relay-stream.js';

/** The plan of a request relayed as is to a provider that speaks its API. */
export function relayPlan(deps: ChatServiceDeps, relayed: RelayedRequest): RelayPlan {
  return {
    kind: 'relay',
    streamHeaders: relayed.wire.streamHeaders(relayed.admitted.requestId),
    complete: (signal) => completeRelayed(deps, relayed, signal),
    stream: (events, signal) => streamRelayed(deps, relayed, events, signal),
  };
}
