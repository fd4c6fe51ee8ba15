import type { ChatCall, ChatCapability, ChatResult, ChatStreamEvent } from '../chat/chat-types.js';
import type { UpstreamClient } from '../http/upstream-client.js';
import { decodeSse } from '../sse/sse-decoder.js';
import { anthropicMaxTokens, toAnthropicRequest } from './anthropic-request.js';
import { fromAnthropicResponse } from './anthropic-response.js';
import { mapAnthropicStream } from './anthropic-stream.js';

/** The Messages API version this adapter speaks. */
export const ANTHROPIC_VERSION = '2023-06-01';

/** Where and how to reach the Anthropic API. */
export interface AnthropicChatOptions {
  /** e.g. `https://api.anthropic.com` (with or without `/v1`). */
  baseUrl: string;
  apiKey: string;
  client: UpstreamClient;
}

/** The Messages endpoint under a configured base URL. */
export function anthropicEndpoint(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return trimmed.endsWith('/v1') ? `${trimmed}/messages` : `${trimmed}/v1/messages`;
}

/** Request headers of a Messages API call. */
export function anthropicHeaders(apiKey: string, stream: boolean): Record<string, string> {
  return {
    'x-api-key': apiKey,
    'anthropic-version': ANTHROPIC_VERSION,
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
  };
}

/** Chat over Anthropic's Messages API (kind `anthropic`). */
export function createAnthropicChat(options: AnthropicChatOptions): ChatCapability {
  const url = anthropicEndpoint(options.baseUrl);
  const headers = (stream: boolean): Record<string, string> => anthropicHeaders(options.apiKey, stream);

  async function complete(call: ChatCall): Promise<ChatResult> {
    const body = JSON.stringify(toAnthropicRequest(call.body, call.upstreamModel, false));
    const response = await options.client.json({ url, headers: headers(false), body, signal: call.signal });
    return fromAnthropicResponse(response.body);
  }

  async function* stream(call: ChatCall): AsyncGenerator<ChatStreamEvent> {
    const body = JSON.stringify(toAnthropicRequest(call.body, call.upstreamModel, true));
    const response = await options.client.request({ url, headers: headers(true), body, signal: call.signal });
    // Reasoning is passed on even under `exclude`: the chat core strips it after counting it.
    yield* mapAnthropicStream(decodeSse(response.body));
  }

  // A thinking budget raises the upstream's max_tokens above the client's: holds must cover it.
  return { complete, stream, outputLimit: anthropicMaxTokens };
}
