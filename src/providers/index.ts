/**
 * Upstream providers: adapters per vendor wire format, the registry and HTTP plumbing.
 * This file is the module's face: code outside the module imports from here only.
 */
export type {
  ChatCapability,
  ChatChoice,
  ChatDelta,
  ChatMessage,
  ChatRequestBody,
  ChatStreamEvent,
  ContentPart,
  TokenUsage,
  ToolCall,
} from './chat/chat-types.js';
export { readReasoning, streamEventWithoutReasoning, withoutReasoning } from './chat/reasoning-options.js';
export type { EmbeddingInput, EmbeddingsCapability, EmbeddingsResult } from './embeddings/embeddings-types.js';
export { KeyTrail, keyTrailOf, startKeyTrail, stopKeyTrail } from './http/key-trail.js';
export { isRecord, type JsonRecord } from './http/narrow.js';
export { closeUpstreamAgents } from './http/upstream-client.js';
export { UpstreamRateLimit } from './http/upstream-errors.js';
export type { ImageFile, ImageGenerateCall, ImageResult, ImagesCapability, ImageUsage } from './images/image-types.js';
export { createLocalImages } from './local/local-images.js';
export type { OcrCapability, OcrDocument, OcrOptions, OcrPage, OcrResult } from './ocr/ocr-types.js';
export { buildProviderRegistry } from './provider-factories.js';
export type { ProviderAdapter } from './provider.js';
export type { ProviderRegistry } from './registry.js';
export type { RelayCall, RelayCapability, RelayedEvent } from './relay/relay-types.js';
