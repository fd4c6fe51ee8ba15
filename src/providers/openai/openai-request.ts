import type { ChatMessage, ChatRequestBody } from '../chat/chat-types.js';
import { readReasoning } from '../chat/reasoning-options.js';
import { isRecord, type JsonRecord } from '../http/narrow.js';

/** Request fields the gateway understands itself; OpenAI-compatible upstreams reject them. */
const GATEWAY_ONLY_FIELDS: ReadonlySet<string> = new Set(['reasoning', 'include_reasoning']);

/** Message fields that exist only in the gateway's (OpenRouter-style) history format. */
const GATEWAY_ONLY_MESSAGE_FIELDS: ReadonlySet<string> = new Set(['reasoning', 'reasoning_content']);

function upstreamMessage(message: ChatMessage): JsonRecord {
  const out: JsonRecord = {};
  for (const [key, value] of Object.entries(message)) {
    if (!GATEWAY_ONLY_MESSAGE_FIELDS.has(key) && value !== undefined) out[key] = value;
  }
  return out;
}

/**
 * Builds the body sent to an OpenAI-compatible `/chat/completions`: every field the client
 * sent passes through except gateway-only ones; `model` becomes the upstream name; reasoning
 * options become `reasoning_effort` (an explicit `reasoning_effort` wins); streams always ask
 * for the usage chunk so billing never has to guess.
 */
export function toOpenAiRequest(body: ChatRequestBody, upstreamModel: string, stream: boolean): JsonRecord {
  const out: JsonRecord = {};
  for (const [key, value] of Object.entries(body)) {
    if (!GATEWAY_ONLY_FIELDS.has(key) && value !== undefined) out[key] = value;
  }
  out.model = upstreamModel;
  out.messages = body.messages.map(upstreamMessage);
  const reasoning = readReasoning(body);
  if (out.reasoning_effort === undefined && reasoning.enabled && reasoning.effort !== undefined) {
    out.reasoning_effort = reasoning.effort;
  }
  if (stream) {
    const clientOptions = isRecord(body.stream_options) ? body.stream_options : {};
    out.stream = true;
    out.stream_options = { ...clientOptions, include_usage: true };
  } else {
    delete out.stream;
    delete out.stream_options;
  }
  return out;
}
