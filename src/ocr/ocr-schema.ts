import { z } from 'zod';
import { validate } from '../http/validate.js';

const url = z.string().min(1).max(30 * 1024 * 1024);

const documentUrl = z.looseObject({
  type: z.literal('document_url'),
  document_url: url,
  document_name: z.string().max(500).nullish(),
});

/** Mistral accepts `image_url` as a string or as `{url}`. */
const imageUrl = z.looseObject({
  type: z.literal('image_url'),
  image_url: z.union([url, z.looseObject({ url })]),
});

/**
 * `POST /v1/ocr`, after Mistral's OCR API: a model and one document. Other Mistral options
 * (`pages`, `include_image_base64`, …) are accepted and ignored.
 */
export const ocrRequestSchema = z.looseObject({
  model: z.string().min(1).max(200),
  document: z.discriminatedUnion('type', [documentUrl, imageUrl]),
});

/** A validated OCR request: the model and where its document is. */
export interface OcrRequest {
  model: string;
  /** `document_url` documents must be PDFs, `image_url` ones images. */
  expect: 'pdf' | 'image';
  url: string;
  /** The request field holding the URL, for error params. */
  param: string;
}

/** Validates an OCR body. */
export function parseOcrRequest(raw: unknown): OcrRequest {
  const body = validate(ocrRequestSchema, raw);
  const { document } = body;
  if (document.type === 'document_url') {
    return { model: body.model, expect: 'pdf', url: document.document_url, param: 'document.document_url' };
  }
  const image = document.image_url;
  return typeof image === 'string'
    ? { model: body.model, expect: 'image', url: image, param: 'document.image_url' }
    : { model: body.model, expect: 'image', url: image.url, param: 'document.image_url.url' };
}
