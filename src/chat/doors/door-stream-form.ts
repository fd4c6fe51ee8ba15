import type { GatewayError } from '../../platform/errors/index.js';
import { completionId } from '../admit/chat-admit.js';
import { errorChunkWire, usageChunkWire, type UsageWire } from '../wire/chat-wire.js';
import type { ChatDoor } from './door-table.js';
import { messagesWire } from './messages/messages-wire.js';
import { responsesWire } from './responses/responses-wire.js';

/** One event of a door's stream: its SSE event name, if it has one, and its data. */
export interface DoorEvent {
  readonly name?: string;
  readonly data: unknown;
}

/** Who a failed stream answered: the request id and the model the client named. */
export interface FailedStream {
  readonly requestId: string;
  readonly model: string;
}

/**
 * How a door's stream looks where the chat path has nothing of its own to say: while it is
 * silent, and when it was committed early (see KeptAnswer) and then failed before any route
 * gave its first byte.
 */
export interface DoorStreamForm {
  /** Heartbeats as Anthropic's `ping` event (its SDK expects them) rather than SSE comments. */
  readonly ping: boolean;
  /** The stream ends with OpenAI's `[DONE]`. */
  readonly done: boolean;
  /** The door's own error events for a failure before the answer began; nothing was billed. */
  failure(err: GatewayError, stream: FailedStream): DoorEvent[];
}

/** Nothing produced, nothing billed: the usage chunk a failed Chat Completions stream still ends with. */
const NO_USAGE: UsageWire = {
  prompt_tokens: 0,
  completion_tokens: 0,
  total_tokens: 0,
  prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0 },
  cost: 0,
  cost_details: [],
};

const FORMS: Readonly<Record<ChatDoor, DoorStreamForm>> = {
  'chat/completions': {
    ping: false,
    done: true,
    failure(err, stream) {
      const meta = { id: completionId(stream.requestId), created: Math.floor(Date.now() / 1000), model: stream.model };
      return [{ data: errorChunkWire(meta, err) }, { data: usageChunkWire(meta, NO_USAGE) }];
    },
  },
  responses: { ping: false, done: false, failure: (err) => [{ name: 'error', data: { ...responsesWire.errorEvent(err), sequence_number: 0 } }] },
  messages: { ping: true, done: false, failure: (err) => [{ name: 'error', data: messagesWire.errorEvent(err) }] },
};

/** The stream form of a door. */
export function doorStreamForm(door: ChatDoor): DoorStreamForm {
  return FORMS[door];
}
