import { isAscii } from 'node:buffer';

/**
 * Long base64 strings (generated images) kept out of a job result's JSON. A 4 MB image is
 * 5.9 MB of base64: JSON.stringify scans it for characters to escape, and JSON.parse copies
 * it again, each several milliseconds for a value that only travels. Base64 needs no
 * escaping, so it can sit beside the JSON instead, checked once by a regex and sliced out
 * again by the reader without being parsed.
 */

/** Strings at least this long are detached when they are plain base64. */
export const DETACH_MIN_CHARS = 64 * 1024;

/** Any character outside base64's alphabet. A search for one is ~9× faster than an anchored `^[…]*$` match. */
const NOT_BASE64 = /[^A-Za-z0-9+/=]/;

/** Where a detached string sat: the keys from the result down to it. */
export type DetachedPath = Array<string | number>;

/** A value with its long base64 strings replaced by `""` and listed apart. */
export interface DetachedValue {
  /** The value with `""` in place of each detached string. */
  value: unknown;
  paths: DetachedPath[];
  strings: string[];
}

/**
 * Whether a string holds base64's characters only, so it needs no escaping in JSON and holds
 * no newline (what separates detached strings).
 */
export function isPlainBase64(text: string): boolean {
  return !NOT_BASE64.test(text);
}

/**
 * Whether detached bytes can be written between JSON quotes as they are: ASCII, with no quote
 * and no backslash, so nothing in them can end or escape the string. The writer checked them for
 * base64's whole alphabet before detaching them ({@link isPlainBase64}); this is the reader's
 * cheaper check, at memory speed, that stored bytes cannot break the JSON they are put in.
 */
export function isQuotableAscii(bytes: Buffer): boolean {
  return isAscii(bytes) && bytes.indexOf(QUOTE) < 0 && bytes.indexOf(BACKSLASH) < 0;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Copies `value` with each long base64 string replaced by `""`, noting where it was. */
export function detachStrings(value: unknown): DetachedValue {
  const paths: DetachedPath[] = [];
  const strings: string[] = [];
  const walk = (node: unknown, path: DetachedPath): unknown => {
    if (typeof node === 'string') {
      if (path.length === 0 || node.length < DETACH_MIN_CHARS || !isPlainBase64(node)) return node;
      paths.push(path);
      strings.push(node);
      return '';
    }
    if (Array.isArray(node)) return node.map((item, index) => walk(item, [...path, index]));
    // Plain data only (what JSON.stringify would write); anything else is left for it.
    if (node === null || typeof node !== 'object' || Object.getPrototypeOf(node) !== Object.prototype) return node;
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(node)) copy[key] = walk(item, [...path, key]);
    return copy;
  };
  const copied = walk(value, []);
  return { value: copied, paths, strings };
}

/**
 * Puts detached strings back where {@link detachStrings} found them (as text, or as the bytes
 * of their text); false when a path does not lead to the `""` it left (the text was not
 * written by it).
 */
export function attachStrings(value: unknown, paths: readonly DetachedPath[], strings: ReadonlyArray<string | Buffer>): boolean {
  if (paths.length !== strings.length) return false;
  for (const [i, path] of paths.entries()) {
    if (!Array.isArray(path) || path.length === 0) return false;
    let parent: unknown = value;
    for (const key of path.slice(0, -1)) parent = parent !== null && typeof parent === 'object' ? (parent as Record<string | number, unknown>)[key] : undefined;
    const last = path[path.length - 1] as string | number;
    if (parent === null || typeof parent !== 'object' || (parent as Record<string | number, unknown>)[last] !== '') return false;
    (parent as Record<string | number, unknown>)[last] = strings[i];
  }
  return true;
}
