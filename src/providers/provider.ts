import type { ChatCapability } from './chat/chat-types.js';
import type { EmbeddingsCapability } from './embeddings/embeddings-types.js';
import type { ImagesCapability } from './images/image-types.js';
import type { InputTokensCapability, RelayCapability } from './relay/relay-types.js';
import type { OcrCapability } from './ocr/ocr-types.js';

/** The kinds of provider the gateway can speak to. */
export type ProviderKind = 'openai' | 'anthropic' | 'mistral-ocr' | 'openai-images' | 'local';

/** One configured provider (an entry of the providers file with its secret resolved). */
export interface ProviderConfig {
  id: string;
  kind: ProviderKind;
  /** Base URL of the vendor API; absent for `local`. */
  baseUrl?: string;
  /** Name of the environment variable that holds the key (never the key itself). */
  apiKeyEnv?: string;
  /** The resolved secret; providers without one (except `local`) are disabled. */
  apiKey?: string;
  /** Every resolved key with the variable naming it, in file order, when the file names several. */
  apiKeys?: Array<{ env: string; value: string }>;
  /** The request field the vendor honours as the output limit (default `max_tokens`). */
  outputLimitField?: OutputLimitField;
  /** The upstream speaks OpenAI's Responses API too (kind `openai`). */
  responsesApi?: boolean;
  /** The upstream continues a partial answer given as a trailing assistant message. */
  prefill?: boolean;
}

/** Request fields that carry a chat answer's output limit. */
export type OutputLimitField = 'max_tokens' | 'max_completion_tokens';

/**
 * A provider adapter: the capabilities it offers. Adapters take an AbortSignal, throw only
 * GatewayError and keep vendor wire types inside their own folder.
 */
export interface ProviderAdapter {
  readonly id: string;
  readonly kind: ProviderKind;
  readonly chat?: ChatCapability;
  /** The upstream continues a partial answer given as a trailing assistant message (absent: no). */
  readonly prefill?: boolean;
  /** Anthropic's Messages API spoken natively: `/v1/messages` is relayed without translation. */
  readonly messages?: RelayCapability;
  /** OpenAI's Responses API spoken natively: `/v1/responses` is relayed without translation. */
  readonly responses?: RelayCapability;
  /** The upstream's own input token count for each relayed API it speaks. */
  readonly inputTokens?: { readonly messages?: InputTokensCapability; readonly responses?: InputTokensCapability };
  readonly images?: ImagesCapability;
  readonly ocr?: OcrCapability;
  /** `POST /v1/embeddings`. */
  readonly embeddings?: EmbeddingsCapability;
}
