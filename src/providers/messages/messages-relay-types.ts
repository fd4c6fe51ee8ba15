import type { TokenUsage } from '../chat/chat-types.js';
import type { JsonRecord } from '../http/narrow.js';

/**
 * The optional `messages` capability: a provider that speaks Anthropic's Messages API
 * natively takes the client's request body as is and hands back the upstream's answer as is,
 * so nothing is lost in translation (thinking signatures, cache control, citations, server
 * tools). Providers without it serve `/v1/messages` through the chat capability.
 */
export interface MessagesCapability {
  /** A non-streamed call: the upstream's message object and its token counts. */
  complete(call: MessagesRelayCall): Promise<RelayedMessage>;
  /** A streamed call: the upstream's events in order, each with the token counts so far. */
  stream(call: MessagesRelayCall): AsyncIterable<RelayedEvent>;
}

/** One relayed call. */
export interface MessagesRelayCall {
  /** The vendor's model name, which replaces the client's `model`. */
  upstreamModel: string;
  /** The client's request body, sent unchanged but for `model`; `stream` says which call to make. */
  body: Readonly<JsonRecord>;
  /** The client's `anthropic-beta` header (features it opted into), passed on when present. */
  beta?: string;
  signal: AbortSignal;
}

/** A non-streamed answer, exactly as the upstream sent it, and its usage normalized. */
export interface RelayedMessage {
  message: JsonRecord;
  /** Undefined when the upstream reported none. */
  usage: TokenUsage | undefined;
}

/** One upstream stream event, exactly as sent (its `type` field names it). */
export interface RelayedEvent {
  data: JsonRecord;
  /** What the upstream reported up to and including this event, normalized. */
  usage: TokenUsage | undefined;
  /** True once the upstream's final counts arrived (Anthropic: `message_delta`). */
  final: boolean;
  /** Text this event adds (text, thinking, tool input), to count a stream cut short. */
  produced: string;
  /** Whether `produced` is reasoning (thinking) rather than visible output. */
  reasoning: boolean;
}
