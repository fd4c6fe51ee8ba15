/**
 * Checks of image URLs in vision content parts: data URLs must carry real base64 image
 * bytes, remote URLs must be https. Only the first bytes are decoded, so a large image
 * costs a regex pass and nothing more.
 */

const DATA_URL_HEADER = /^data:(image\/[a-z0-9.+-]+)(?:;[a-z0-9!#$&^_.+-]+=[^;,]*)*;base64$/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const MAX_HEADER_LENGTH = 256;
/** 32 base64 characters decode to 24 bytes: enough for every signature below. */
const SNIFF_CHARS = 32;

/** Leading bytes of the image formats vision models accept. */
const SIGNATURES: ReadonlyArray<{ type: string; test: (b: Buffer) => boolean }> = [
  { type: 'png', test: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) },
  { type: 'jpeg', test: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { type: 'gif', test: (b) => b.subarray(0, 4).toString('latin1') === 'GIF8' },
  { type: 'webp', test: (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP' },
];

function isBase64(payload: string): boolean {
  if (payload.length === 0 || !BASE64.test(payload)) return false;
  return payload.includes('=') ? payload.length % 4 === 0 : payload.length % 4 !== 1;
}

/** Why an image data URL is unacceptable, or undefined when it is a real base64 image. */
export function imageDataUrlProblem(url: string): string | undefined {
  const comma = url.indexOf(',');
  if (comma < 0 || comma > MAX_HEADER_LENGTH) return 'expected data:image/<type>;base64,<payload>';
  if (!DATA_URL_HEADER.test(url.slice(0, comma))) return 'expected data:image/<type>;base64,<payload>';
  const payload = url.slice(comma + 1);
  if (!isBase64(payload)) return 'the payload is not valid base64';
  const head = Buffer.from(payload.slice(0, SNIFF_CHARS), 'base64');
  if (!SIGNATURES.some((signature) => signature.test(head))) return 'the payload is not a PNG, JPEG, GIF or WebP image';
  return undefined;
}

/** Why an image URL is unacceptable (data URL or https), or undefined when it is fine. */
export function imageUrlProblem(url: string): string | undefined {
  if (url.startsWith('data:')) return imageDataUrlProblem(url);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an https URL or a base64 data URL';
  }
  return parsed.protocol === 'https:' ? undefined : 'must be an https URL or a base64 data URL';
}
