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

/** Token counts the upstream reported; prompt counts include cache writes and reads. */
export interface RelayedCounts {
  promptTokens?: number;
  completionTokens?: number;
}

/** A non-streamed answer, exactly as the upstream sent it. */
export interface RelayedMessage {
  message: JsonRecord;
  counts: RelayedCounts;
}

/** One upstream stream event, exactly as sent (its `type` field names it). */
export interface RelayedEvent {
  data: JsonRecord;
  /** What the upstream reported up to and including this event. */
  counts: RelayedCounts;
  /** Text this event adds (text, thinking, tool input), to count a stream cut short. */
  produced: string;
}
