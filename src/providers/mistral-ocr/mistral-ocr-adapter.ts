import { bearer, providerClient } from '../http/provider-client.js';
import { requireEndpoint } from '../http/require-endpoint.js';
import type { UpstreamClient } from '../http/upstream-client.js';
import type { OcrCall, OcrCapability, OcrResult } from '../ocr/ocr-types.js';
import type { ProviderAdapter, ProviderConfig } from '../provider.js';
import type { ProviderDeps } from '../registry.js';
import { toOcrBody } from './mistral-ocr-request.js';
import { fromOcrResponse } from './mistral-ocr-response.js';

/** Where and how to reach Mistral's OCR API. */
export interface MistralOcrOptions {
  /** e.g. `https://api.mistral.ai` (with or without `/v1`). */
  baseUrl: string;
  apiKey: string;
  client: UpstreamClient;
}

function endpoint(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return trimmed.endsWith('/v1') ? `${trimmed}/ocr` : `${trimmed}/v1/ocr`;
}

/** OCR over Mistral's OCR API (kind `mistral-ocr`). */
export function createMistralOcr(options: MistralOcrOptions): OcrCapability {
  const url = endpoint(options.baseUrl);
  return {
    async recognize(call: OcrCall): Promise<OcrResult> {
      const response = await options.client.json({
        url,
        headers: {
          authorization: `Bearer ${options.apiKey}`,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify(toOcrBody(call)),
        signal: call.signal,
      });
      return fromOcrResponse(response.body, call.document.data.length);
    },
  };
}

/** Adapter of kind `mistral-ocr`, built by the provider registry. */
export function createMistralOcrAdapter(config: ProviderConfig, deps: ProviderDeps): ProviderAdapter {
  const { baseUrl, apiKey } = requireEndpoint(config);
  return { id: config.id, kind: config.kind, ocr: createMistralOcr({ baseUrl, apiKey, client: providerClient({ config, ...deps }, bearer) }) };
}
