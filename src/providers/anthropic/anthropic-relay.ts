import { GatewayError } from '../../errors/gateway-error.js';
import { isRecord, recordAt, stringAt, type JsonRecord } from '../http/narrow.js';
import type { UpstreamClient } from '../http/upstream-client.js';
import type { MessagesCapability, MessagesRelayCall, RelayedCounts, RelayedEvent, RelayedMessage } from '../messages/messages-relay-types.js';
import { decodeSse, parseSseJson } from '../sse/sse-decoder.js';
import type { AnthropicChatOptions } from './anthropic-chat.js';
import { anthropicEndpoint, anthropicHeaders } from './anthropic-chat.js';
import { readAnthropicUsage } from './anthropic-response.js';

function countsOf(usage: unknown, before: RelayedCounts = {}): RelayedCounts {
  const read = readAnthropicUsage(usage);
  return {
    ...before,
    ...(read.input !== undefined ? { promptTokens: read.input } : {}),
    ...(read.output !== undefined ? { completionTokens: read.output } : {}),
  };
}

/** The text an event adds to the answer; what a stream cut short is billed by. */
function producedBy(event: JsonRecord): string {
  const type = stringAt(event, 'type');
  if (type === 'content_block_start') return stringAt(recordAt(event, 'content_block'), 'name') ?? '';
  if (type !== 'content_block_delta') return '';
  const delta = recordAt(event, 'delta');
  return stringAt(delta, 'text') ?? stringAt(delta, 'thinking') ?? stringAt(delta, 'partial_json') ?? '';
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
export function createAnthropicRelay(options: AnthropicChatOptions): MessagesCapability {
  const url = anthropicEndpoint(options.baseUrl);
  // `stream` is the client's own field: the caller picks `complete` or `stream` from it.
  const bodyOf = (call: MessagesRelayCall): string => JSON.stringify({ ...call.body, model: call.upstreamModel });
  const headersOf = (call: MessagesRelayCall, stream: boolean): Record<string, string> => ({
    ...anthropicHeaders(options.apiKey, stream),
    ...(call.beta !== undefined ? { 'anthropic-beta': call.beta } : {}),
  });

  async function complete(call: MessagesRelayCall): Promise<RelayedMessage> {
    const response = await options.client.json({ url, headers: headersOf(call, false), body: bodyOf(call), signal: call.signal });
    if (!isRecord(response.body) || !Array.isArray(response.body.content)) {
      throw new GatewayError('upstream_error', 'The upstream provider answered without content');
    }
    return { message: response.body, counts: countsOf(response.body.usage) };
  }

  async function* stream(call: MessagesRelayCall): AsyncGenerator<RelayedEvent> {
    const response = await options.client.request({ url, headers: headersOf(call, true), body: bodyOf(call), signal: call.signal });
    let counts: RelayedCounts = {};
    for await (const sse of decodeSse(response.body)) {
      const data = parseSseJson(sse.data);
      if (!isRecord(data) || typeof data.type !== 'string') throw new GatewayError('upstream_error', 'The upstream provider sent an event without a type');
      counts = countsOf(usageOf(data), counts);
      yield { data, counts, produced: producedBy(data) };
    }
  }

  return { complete, stream };
}
