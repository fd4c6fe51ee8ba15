import { bearer, providerClient } from '../http/provider-client.js';
import { requireEndpoint } from '../http/require-endpoint.js';
import type { UpstreamClient } from '../http/upstream-client.js';
import type { ImageEditCall, ImageGenerateCall, ImageResult, ImagesCapability } from '../images/image-types.js';
import type { ProviderAdapter, ProviderConfig } from '../provider.js';
import type { ProviderDeps } from '../registry.js';
import { toEditForm, toGenerationBody } from './openai-images-request.js';
import { fromImagesResponse } from './openai-images-response.js';

/** Where and how to reach an OpenAI Images API. */
export interface OpenAiImagesOptions {
  /** e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  apiKey: string;
  client: UpstreamClient;
}

/** Image generation and edits over the OpenAI Images API (kind `openai-images`). */
export function createOpenAiImages(options: OpenAiImagesOptions): ImagesCapability {
  const base = options.baseUrl.replace(/\/+$/, '');
  const auth = { authorization: `Bearer ${options.apiKey}` };

  async function generate(call: ImageGenerateCall): Promise<ImageResult> {
    const response = await options.client.json({
      url: `${base}/images/generations`,
      headers: { ...auth, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(toGenerationBody(call)),
      signal: call.signal,
    });
    return fromImagesResponse(response.body);
  }

  async function edit(call: ImageEditCall): Promise<ImageResult> {
    // The multipart content type (with its boundary) is set by the HTTP client from the form.
    const response = await options.client.json({
      url: `${base}/images/edits`,
      headers: { ...auth, accept: 'application/json' },
      body: toEditForm(call),
      signal: call.signal,
    });
    return fromImagesResponse(response.body);
  }

  return { generate, edit };
}

/** Adapter of kind `openai-images`, built by the provider registry. */
export function createOpenAiImagesAdapter(config: ProviderConfig, deps: ProviderDeps): ProviderAdapter {
  const { baseUrl, apiKey } = requireEndpoint(config);
  return { id: config.id, kind: config.kind, images: createOpenAiImages({ baseUrl, apiKey, client: providerClient({ config, ...deps }, bearer) }) };
}
