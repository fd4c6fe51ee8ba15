import type { OcrCall } from '../ocr/ocr-types.js';

/**
 * The JSON body of POST /v1/ocr. The document travels inline as a base64 data URL: a PDF as
 * `document_url`, an image as `image_url`. The client's options go upstream under Mistral's
 * names; image data is requested only when the client asked for it.
 */
export function toOcrBody(call: OcrCall): Record<string, unknown> {
  const { document } = call;
  const payload = document.data.toString('base64');
  const doc =
    document.kind === 'pdf'
      ? { type: 'document_url', document_url: `data:application/pdf;base64,${payload}` }
      : { type: 'image_url', image_url: `data:${document.contentType};base64,${payload}` };
  const options = call.options ?? {};
  const body: Record<string, unknown> = { model: call.upstreamModel, document: doc, include_image_base64: options.includeImageBase64 ?? false };
  if (options.pages !== undefined) body.pages = options.pages;
  if (options.imageLimit !== undefined) body.image_limit = options.imageLimit;
  if (options.imageMinSize !== undefined) body.image_min_size = options.imageMinSize;
  return body;
}
