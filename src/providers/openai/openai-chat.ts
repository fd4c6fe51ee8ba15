import type { ChatCall, ChatCapability, ChatResult, ChatStreamEvent } from '../chat/chat-types.js';
import type { UpstreamClient } from '../http/upstream-client.js';
import { decodeSse } from '../sse/sse-decoder.js';
import { toOpenAiRequest } from './openai-request.js';
import { fromOpenAiResponse } from './openai-response.js';
import { mapOpenAiStream } from './openai-stream.js';

/** Where and how to reach an OpenAI-compatible API. */
export interface OpenAiChatOptions {
  /** Base URL including the version segment, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  apiKey: string;
  client: UpstreamClient;
}

function endpoint(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/chat/completions`;
}

/** Chat over any OpenAI-compatible `/chat/completions` endpoint (kind `openai`). */
export function createOpenAiChat(options: OpenAiChatOptions): ChatCapability {
  const url = endpoint(options.baseUrl);
  const headers = (stream: boolean): Record<string, string> => ({
    authorization: `Bearer ${options.apiKey}`,
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
  });

  async function complete(call: ChatCall): Promise<ChatResult> {
    const body = JSON.stringify(toOpenAiRequest(call.body, call.upstreamModel, false));
    const response = await options.client.json({ url, headers: headers(false), body, signal: call.signal });
    return fromOpenAiResponse(response.body);
  }

  async function* stream(call: ChatCall): AsyncGenerator<ChatStreamEvent> {
    const body = JSON.stringify(toOpenAiRequest(call.body, call.upstreamModel, true));
    const response = await options.client.request({ url, headers: headers(true), body, signal: call.signal });
    // Reasoning is passed on even under `exclude`: the chat core strips it after counting it.
    yield* mapOpenAiStream(decodeSse(response.body));
  }

  return { complete, stream };
}
