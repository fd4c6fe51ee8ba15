import type { EmbeddingsCall, EmbeddingsCapability, EmbeddingsResult } from '../embeddings/embeddings-types.js';
import { inputList } from '../embeddings/embeddings-types.js';
import type { UpstreamClient } from '../http/upstream-client.js';
import { fromOpenAiEmbeddingsBytes } from './openai-embeddings-response.js';

/** Where and how to reach an OpenAI-compatible API. */
export interface OpenAiEmbeddingsOptions {
  /** Base URL including the version segment, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  apiKey: string;
  client: UpstreamClient;
}

/** The request body OpenAI's `POST /embeddings` takes. */
export function toOpenAiEmbeddingsRequest(call: Omit<EmbeddingsCall, 'signal'>): Record<string, unknown> {
  return {
    model: call.upstreamModel,
    input: call.input,
    // Floats are what every compatible server speaks (Mistral, Ollama and LM Studio among
    // them); the gateway encodes base64 itself when the client asked for it.
    encoding_format: 'float',
    ...(call.dimensions === undefined ? {} : { dimensions: call.dimensions }),
    ...(call.user === undefined ? {} : { user: call.user }),
  };
}

/** Embeddings over any OpenAI-compatible `/embeddings` endpoint (kind `openai`). */
export function createOpenAiEmbeddings(options: OpenAiEmbeddingsOptions): EmbeddingsCapability {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/embeddings`;
  const headers = { authorization: `Bearer ${options.apiKey}`, 'content-type': 'application/json', accept: 'application/json' };
  return {
    async create(call: EmbeddingsCall): Promise<EmbeddingsResult> {
      const body = JSON.stringify(toOpenAiEmbeddingsRequest(call));
      const response = await options.client.request({ url, headers, body, signal: call.signal });
      // Read as bytes (not `json()`): the vectors' own bytes are relayed (see vector-skeleton).
      return fromOpenAiEmbeddingsBytes(await response.bytes(), inputList(call.input).length);
    },
  };
}
