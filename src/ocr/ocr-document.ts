import { loadSharp } from '../platform/util/index.js';
import { fetchDocument, type FetchDocumentOptions, parseDataUrl } from '../platform/documents/index.js';
import { GatewayError } from '../platform/errors/index.js';
import { parseGuardedUrl } from '../platform/security/index.js';
import type { OcrRequest } from './ocr-schema.js';

/** A document ready for the queue. */
export interface OcrInput {
  kind: 'pdf' | 'image';
  data: Buffer;
  contentType: string;
}

/** Where a document comes from: already decoded (data URL), or an https URL to fetch. */
export type DocumentSource = { inline: OcrInput } | { remote: URL };

const PDF_MAGIC = Buffer.from('%PDF-');

function wrongType(request: OcrRequest): GatewayError {
  const what = request.expect === 'pdf' ? 'a PDF document' : 'a PNG, JPEG, WebP, GIF or TIFF image';
  return new GatewayError('invalid_request', `${request.param} must be ${what}.`, { param: request.param });
}

/** Checks the bytes are what the field promises: a PDF by its header, an image by decoding its header. */
async function checkBytes(request: OcrRequest, data: Buffer): Promise<OcrInput> {
  const sharp = await loadSharp();
  if (request.expect === 'pdf') {
    if (!data.subarray(0, 1024).includes(PDF_MAGIC)) throw wrongType(request);
    return { kind: 'pdf', data, contentType: 'application/pdf' };
  }
  try {
    const meta = await sharp(data).metadata();
    if (!meta.format || !meta.width || !meta.height) throw wrongType(request);
    return { kind: 'image', data, contentType: meta.format === 'jpeg' ? 'image/jpeg' : `image/${meta.format}` };
  } catch {
    throw wrongType(request);
  }
}

/**
 * Decides where the document is without touching the network: data URLs are decoded and
 * checked now (400 before anything is held); anything else must be an https URL without
 * credentials (http, file, ftp … are refused here, so they are never fetched).
 */
export async function documentSource(request: OcrRequest, maxBytes: number): Promise<DocumentSource> {
  if (/^data:/i.test(request.url)) {
    const acceptedTypes = request.expect === 'pdf' ? ['application/pdf'] : ['image/*'];
    const decoded = parseDataUrl(request.url, { param: request.param, acceptedTypes, maxBytes });
    return { inline: await checkBytes(request, decoded.data) };
  }
  return { remote: parseGuardedUrl(request.url, request.param) };
}

/** Options of a document load. */
export interface LoadOptions {
  maxBytes: number;
  timeoutMs: number;
  allowLoopback: boolean;
  signal: AbortSignal;
  overrides?: Pick<FetchDocumentOptions, 'tls' | 'resolver'>;
}

/** The document's bytes: inline ones as they are, remote ones through the SSRF-guarded fetch. */
export async function loadDocument(request: OcrRequest, source: DocumentSource, options: LoadOptions): Promise<OcrInput> {
  if ('inline' in source) return source.inline;
  const fetched = await fetchDocument({
    url: source.remote.toString(),
    param: request.param,
    maxBytes: options.maxBytes,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    allowLoopback: options.allowLoopback,
    ...options.overrides,
  });
  return checkBytes(request, fetched.data);
}
