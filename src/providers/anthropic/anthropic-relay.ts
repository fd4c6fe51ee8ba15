import { GatewayError } from '../../platform/errors/index.js';
import { isRecord, numberAt, recordAt, stringAt, type JsonRecord } from '../http/narrow.js';
import type { UpstreamClient } from '../http/upstream-client.js';
import type { InputTokensCapability, RelayCapability, RelayCall, RelayedEvent, RelayedMessage } from '../relay/relay-types.js';
import { decodeSse, parseSseJson } from '../sse/sse-decoder.js';
import type { AnthropicChatOptions } from './anthropic-chat.js';
import { anthropicEndpoint, anthropicHeaders } from './anthropic-chat.js';
import { readAnthropicUsage, toTokenUsage, type AnthropicTokenCounts } from './anthropic-response.js';

/** The text an event adds to the answer, and whether it is thinking; what a stream cut short is billed by. */
function producedBy(event: JsonRecord): { produced: string; reasoning: boolean } {
  const type = stringAt(event, 'type');
  if (type === 'content_block_start') return { produced: stringAt(recordAt(event, 'content_block'), 'name') ?? '', reasoning: false };
  if (type !== 'content_block_delta') return { produced: '', reasoning: false };
  const delta = recordAt(event, 'delta');
  const thinking = stringAt(delta, 'thinking');
  if (thinking !== undefined) return { produced: thinking, reasoning: true };
  return { produced: stringAt(delta, 'text') ?? stringAt(delta, 'partial_json') ?? '', reasoning: false };
}

/** Usage of a stream event: on `message_start` inside the message, on `message_delta` at the top. */
function usageOf(event: JsonRecord): unknown {
  return stringAt(event, 'type') === 'message_start' ? recordAt(event, 'message')?.usage : event.usage;
}

/**
 * Relays Messages API calls as they are: the client's body goes up with only `model`
 * replaced, and the upstream's message or events come back untouched, with the token counts
 * read along the way for billing.
 */
export function createAnthropicRelay(options: AnthropicChatOptions): RelayCapability {
  const url = anthropicEndpoint(options.baseUrl);
  // `stream` is the client's own field: the caller picks `complete` or `stream` from it.
  const bodyOf = (call: RelayCall): string => JSON.stringify({ ...call.body, model: call.upstreamModel });
  const headersOf = (call: RelayCall, stream: boolean): Record<string, string> => ({
    ...anthropicHeaders(options.apiKey, stream),
    ...(call.beta !== undefined ? { 'anthropic-beta': call.beta } : {}),
  });

  async function complete(call: RelayCall): Promise<RelayedMessage> {
    const response = await options.client.json({ url, headers: headersOf(call, false), body: bodyOf(call), signal: call.signal });
    if (!isRecord(response.body) || !Array.isArray(response.body.content)) {
      throw new GatewayError('upstream_error', 'The upstream provider answered without content');
    }
    return { message: response.body, usage: toTokenUsage(readAnthropicUsage(response.body.usage), '') };
  }

  async function* stream(call: RelayCall): AsyncGenerator<RelayedEvent> {
    const response = await options.client.request({ url, headers: headersOf(call, true), body: bodyOf(call), signal: call.signal });
    let counts: AnthropicTokenCounts = {};
    let final = false;
    for await (const sse of decodeSse(response.body)) {
      const data = parseSseJson(sse.data);
      if (!isRecord(data) || typeof data.type !== 'string') throw new GatewayError('upstream_error', 'The upstream provider sent an event without a type');
      counts = { ...counts, ...readAnthropicUsage(usageOf(data)) };
      final ||= data.type === 'message_delta';
      yield { data, usage: toTokenUsage(counts, ''), final, ...producedBy(data) };
    }
  }

  return { complete, stream };
}

/** Anthropic's own count of a Messages request's input (`POST /v1/messages/count_tokens`). */
export function createAnthropicInputTokens(options: AnthropicChatOptions): InputTokensCapability {
  const url = `${anthropicEndpoint(options.baseUrl)}/count_tokens`;
  return {
    async count(call) {
      // The count takes the request without its output settings.
      const { stream: _stream, max_tokens: _max, ...body } = call.body;
      const headers = { ...anthropicHeaders(options.apiKey, false), ...(call.beta !== undefined ? { 'anthropic-beta': call.beta } : {}) };
      const response = await options.client.json({ url, headers, body: JSON.stringify({ ...body, model: call.upstreamModel }), signal: call.signal });
      const tokens = numberAt(response.body, 'input_tokens');
      if (tokens === undefined) throw new GatewayError('upstream_error', 'The upstream provider answered a token count without input_tokens');
      return tokens;
    },
  };
}
