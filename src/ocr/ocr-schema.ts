import { z } from 'zod';
import { GatewayError } from '../platform/errors/index.js';
import { validate } from '../platform/validation/index.js';
import type { OcrOptions } from '../providers/index.js';

/** Most page indexes one request may name (Mistral's page limit per document). */
const MAX_PAGE_INDEX = 999;

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

const pageIndex = z.number().int().min(0).max(MAX_PAGE_INDEX);

/** Mistral's string form of `pages`: comma-separated indexes and inclusive ranges ("0,2-4"). */
const PAGE_LIST = /^\s*\d+(\s*-\s*\d+)?(\s*,\s*\d+(\s*-\s*\d+)?)*\s*$/;

/**
 * `POST /v1/ocr`, after Mistral's OCR API: a model, one document and Mistral's options
 * (`pages` as 0-based indexes or a "0,2-4" string, `include_image_base64`, `image_limit`,
 * `image_min_size`).
 */
export const ocrRequestSchema = z.looseObject({
  model: z.string().min(1).max(200),
  document: z.discriminatedUnion('type', [documentUrl, imageUrl]),
  pages: z.union([z.array(pageIndex).min(1).max(MAX_PAGE_INDEX + 1), z.string().regex(PAGE_LIST, 'must list page indexes like "0,2-4"')]).nullish(),
  include_image_base64: z.boolean().nullish(),
  image_limit: z.number().int().min(0).max(10_000).nullish(),
  image_min_size: z.number().int().min(0).max(100_000).nullish(),
});

/** A validated OCR request: the model, where its document is and Mistral's options. */
export interface OcrRequest {
  model: string;
  /** `document_url` documents must be PDFs, `image_url` ones images. */
  expect: 'pdf' | 'image';
  url: string;
  /** The request field holding the URL, for error params. */
  param: string;
  options: OcrOptions;
}

/** Page indexes of the string form, ascending and distinct; 400 for a reversed or huge range. */
function expandPageList(list: string): number[] {
  const pages = new Set<number>();
  for (const part of list.split(',')) {
    const [from, to = from] = part.split('-').map((n) => Number(n.trim()));
    if (from === undefined || to === undefined || to < from || to > MAX_PAGE_INDEX) {
      throw new GatewayError('invalid_request', `pages: "${part.trim()}" is not a valid page range (0-${MAX_PAGE_INDEX})`, { param: 'pages' });
    }
    for (let page = from; page <= to; page += 1) pages.add(page);
  }
  return [...pages].sort((a, b) => a - b);
}

function readOptions(body: z.output<typeof ocrRequestSchema>): OcrOptions {
  const options: OcrOptions = {};
  if (typeof body.pages === 'string') options.pages = expandPageList(body.pages);
  else if (Array.isArray(body.pages)) options.pages = [...new Set(body.pages)].sort((a, b) => a - b);
  if (typeof body.include_image_base64 === 'boolean') options.includeImageBase64 = body.include_image_base64;
  if (typeof body.image_limit === 'number') options.imageLimit = body.image_limit;
  if (typeof body.image_min_size === 'number') options.imageMinSize = body.image_min_size;
  return options;
}

/** Validates an OCR body. */
export function parseOcrRequest(raw: unknown): OcrRequest {
  const body = validate(ocrRequestSchema, raw);
  const { document } = body;
  const options = readOptions(body);
  if (document.type === 'document_url') {
    return { model: body.model, expect: 'pdf', url: document.document_url, param: 'document.document_url', options };
  }
  const image = document.image_url;
  return typeof image === 'string'
    ? { model: body.model, expect: 'image', url: image, param: 'document.image_url', options }
    : { model: body.model, expect: 'image', url: image.url, param: 'document.image_url.url', options };
}

/**
 * Pages that will be processed (and billed) of a document with `pageCount` pages: the
 * requested indexes that exist, or every page when none were requested.
 */
export function pagesToProcess(pageCount: number, options: OcrOptions): number {
  if (options.pages === undefined) return pageCount;
  return options.pages.filter((page) => page < pageCount).length;
}
