import type { OcrCall } from '../ocr/ocr-types.js';

/**
 * The JSON body of POST /v1/ocr. The document travels inline as a base64 data URL: a PDF as
 * `document_url`, an image as `image_url`. Extracted images are not requested.
 */
export function toOcrBody(call: OcrCall): Record<string, unknown> {
  const { document } = call;
  const payload = document.data.toString('base64');
  const doc =
    document.kind === 'pdf'
      ? { type: 'document_url', document_url: `data:application/pdf;base64,${payload}` }
      : { type: 'image_url', image_url: `data:${document.contentType};base64,${payload}` };
  return { model: call.upstreamModel, document: doc, include_image_base64: false };
}
