import type { TokenUsage } from '../chat/chat-types.js';
import type { JsonRecord } from '../http/narrow.js';

/**
 * A vendor API spoken natively (Anthropic's Messages, OpenAI's Responses): the provider takes
 * the client's request body as is and hands back the upstream's answer as is, so nothing is
 * lost in translation (thinking signatures, cache control, hosted tools, namespaces).
 * Providers without it serve that front door through the chat capability.
 */
export interface RelayCapability {
  /** A non-streamed call: the upstream's answer object and its token counts. */
  complete(call: RelayCall): Promise<RelayedMessage>;
  /** A streamed call: the upstream's events in order, each with the token counts so far. */
  stream(call: RelayCall): AsyncIterable<RelayedEvent>;
}

/** One relayed call. */
export interface RelayCall {
  /** The vendor's model name, which replaces the client's `model`. */
  upstreamModel: string;
  /** The client's request body, sent unchanged but for `model`; `stream` says which call to make. */
  body: Readonly<JsonRecord>;
  /** The client's `anthropic-beta` header (features it opted into), passed on when present. */
  beta?: string;
  signal: AbortSignal;
}

/** A token count the upstream makes itself (Anthropic's `count_tokens`, OpenAI's `input_tokens`). */
export interface InputTokensCapability {
  /** The input tokens the client's body would bill, as the upstream counts them. */
  count(call: RelayCall): Promise<number>;
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
