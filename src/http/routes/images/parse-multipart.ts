import type { IncomingMessage } from 'node:http';
import { Writable } from 'node:stream';
import formidable, { multipart } from 'formidable';
import { GatewayError, isGatewayError } from '../../../platform/errors/index.js';
import { drainRemainder } from '../../middleware/drain-request.js';
import type { MultipartForm, UploadedFile } from '../../../images/index.js';

/** Bounds of a form. */
export interface MultipartLimits {
  /** Largest single file; larger → 413 naming the field. */
  fileBytes: number;
  /** Field names that may carry files; others → 400. */
  fileFields: readonly string[];
  maxFiles: number;
  /** Total bytes of all text fields together. */
  fieldBytes: number;
  maxFields: number;
}

function tooLarge(field: string, limit: number): GatewayError {
  return new GatewayError('payload_too_large', `File in field '${field}' exceeds the ${limit} byte limit.`, { param: field });
}

/**
 * Collects a file in memory and fails as soon as it passes the limit, so an oversized upload
 * costs at most `limit` bytes of memory before the request is refused.
 */
function boundedSink(field: string, limit: number, done: (data: Buffer) => void): Writable {
  const chunks: Buffer[] = [];
  let size = 0;
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > limit) return callback(tooLarge(field, limit));
      chunks.push(chunk);
      callback();
    },
    final(callback) {
      done(Buffer.concat(chunks, size));
      callback();
    },
  });
}

function formError(err: unknown): GatewayError {
  if (isGatewayError(err)) return err;
  const status = typeof err === 'object' && err !== null ? (err as { httpCode?: unknown }).httpCode : undefined;
  const detail = err instanceof Error ? err.message.replace(/options\./g, '') : 'unreadable body';
  if (status === 413) return new GatewayError('payload_too_large', `Multipart body too large: ${detail}`, { cause: err });
  if (status === 415) {
    return new GatewayError('invalid_request', 'Expected a multipart/form-data body.', { cause: err });
  }
  return new GatewayError('invalid_request', `Malformed multipart body: ${detail}`, { cause: err });
}

/**
 * Parses a multipart/form-data request with formidable, keeping files in memory within
 * per-file, file-count and field-size bounds. Errors are GatewayErrors: 413 for an oversized
 * file (param = its field, e.g. `image[]`), 400 for anything malformed or unexpected.
 */
export async function parseMultipart(req: IncomingMessage, limits: MultipartLimits): Promise<MultipartForm> {
  // A body of another type, or one some parser already read, would leave formidable waiting.
  if (!/^multipart\/form-data\s*;/i.test(req.headers['content-type'] ?? '') || req.readableEnded) {
    throw new GatewayError('invalid_request', 'Expected a multipart/form-data body.');
  }
  try {
    return await readForm(req, limits);
  } catch (err) {
    await drainRemainder(req, limits.fileBytes * limits.maxFiles + limits.fieldBytes);
    throw err;
  }
}

async function readForm(req: IncomingMessage, limits: MultipartLimits): Promise<MultipartForm> {
  const contents = new Map<unknown, Buffer>();
  let currentField = '';
  const sinkFor = (file: unknown): Writable => {
    const field = currentField;
    if (!limits.fileFields.includes(field)) {
      const unexpected = new GatewayError('invalid_request', `Unexpected file field '${field}'.`, { param: field });
      return new Writable({ construct: (callback) => callback(unexpected), write: (_chunk, _encoding, callback) => callback() });
    }
    return boundedSink(field, limits.fileBytes, (data) => contents.set(file, data));
  };
  const form = formidable({
    enabledPlugins: [multipart],
    maxFiles: limits.maxFiles,
    maxFileSize: limits.fileBytes,
    maxTotalFileSize: limits.fileBytes * limits.maxFiles,
    maxFields: limits.maxFields,
    maxFieldsSize: limits.fieldBytes,
    allowEmptyFiles: false,
    fileWriteStreamHandler: sinkFor,
  });
  // formidable announces a file right before opening its sink, so the sink knows its field.
  form.on('fileBegin', (name) => {
    currentField = name;
  });
  let parsed;
  try {
    parsed = await form.parse(req);
  } catch (err) {
    throw formError(err);
  }
  const [rawFields, rawFiles] = parsed;
  const fields: Record<string, string> = {};
  for (const [name, values] of Object.entries(rawFields)) {
    const last = values?.at(-1);
    if (last !== undefined) fields[name] = last;
  }
  const files: UploadedFile[] = [];
  for (const [field, list] of Object.entries(rawFiles)) {
    for (const file of list ?? []) {
      files.push({
        field,
        filename: file.originalFilename ?? 'upload',
        contentType: file.mimetype ?? 'application/octet-stream',
        data: contents.get(file) ?? Buffer.alloc(0),
      });
    }
  }
  return { fields, files };
}
