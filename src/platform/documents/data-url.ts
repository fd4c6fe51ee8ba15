import { GatewayError } from '../errors/index.js';

/** What a caller accepts from a data URL. */
export interface DataUrlOptions {
  /** Request field the URL came from, used as the error param (e.g. `document.document_url`). */
  param: string;
  /** Accepted media types, lower case: exact (`application/pdf`) or a family (`image/*`). */
  acceptedTypes: readonly string[];
  /** Largest decoded payload in bytes; larger → payload_too_large. */
  maxBytes: number;
}

/** A decoded data URL. */
export interface DecodedDataUrl {
  /** Lower-case media type without parameters. */
  mimeType: string;
  data: Buffer;
}

const TOKEN = "[a-z0-9!#$&^_.+-]+";
/** `data:type/subtype[;param=value]*;base64` — the header before the comma. */
const HEADER_PATTERN = new RegExp(`^data:(${TOKEN}/${TOKEN})((?:;${TOKEN}=[^;,]*)*);base64$`, 'i');
const BASE64_PATTERN = /^[A-Za-z0-9+/]*={0,2}$/;
/** Longest header considered; real ones are a few dozen characters. */
const MAX_HEADER_LENGTH = 256;

function invalid(param: string, why: string): GatewayError {
  return new GatewayError('invalid_request', `Invalid data URL in ${param}: ${why}`, { param });
}

function accepts(acceptedTypes: readonly string[], mimeType: string): boolean {
  return acceptedTypes.some((accepted) =>
    accepted.endsWith('/*') ? mimeType.startsWith(accepted.slice(0, -1)) : mimeType === accepted,
  );
}

/** Decoded length of a base64 string, computed before decoding so huge payloads cost nothing. */
function decodedLength(payload: string): number {
  const padding = payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0;
  return Math.floor((payload.length * 3) / 4) - padding;
}

function checkPayload(payload: string, param: string): void {
  if (payload.length === 0) throw invalid(param, 'the payload is empty');
  if (!BASE64_PATTERN.test(payload)) throw invalid(param, 'the payload is not valid base64');
  const padded = payload.includes('=');
  if (padded ? payload.length % 4 !== 0 : payload.length % 4 === 1) {
    throw invalid(param, 'the payload is not valid base64 (bad length or padding)');
  }
}

/**
 * Strictly parses `data:<type>/<subtype>[;k=v]*;base64,<payload>`. The base64 flag is required,
 * the payload must be standard base64 (no whitespace, URL-safe alphabet or stray characters),
 * the media type must be one the caller accepts, and the decoded size must fit the limit.
 */
export function parseDataUrl(url: string, options: DataUrlOptions): DecodedDataUrl {
  const { param } = options;
  const comma = url.indexOf(',');
  if (comma < 0 || comma > MAX_HEADER_LENGTH) throw invalid(param, 'expected data:<type>;base64,<payload>');
  const header = HEADER_PATTERN.exec(url.slice(0, comma));
  if (header?.[1] === undefined) {
    throw invalid(param, 'expected data:<type>;base64,<payload> with a base64 payload');
  }
  const mimeType = header[1].toLowerCase();
  if (!accepts(options.acceptedTypes, mimeType)) {
    throw invalid(param, `media type ${mimeType} is not accepted here (accepted: ${options.acceptedTypes.join(', ')})`);
  }
  const payload = url.slice(comma + 1);
  if (decodedLength(payload) > options.maxBytes) {
    throw new GatewayError('payload_too_large', `The data URL in ${param} exceeds ${options.maxBytes} bytes`, { param });
  }
  checkPayload(payload, param);
  return { mimeType, data: Buffer.from(payload, 'base64') };
}
