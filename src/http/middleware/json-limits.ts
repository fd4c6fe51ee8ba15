import type { Middleware } from 'koa';
import { GatewayError } from '../../platform/errors/index.js';
import type { GatewayState } from '../state.js';

/** Generic bounds on any JSON body, beside the per-field limits of each endpoint's schema. */
export interface JsonLimits {
  /** Deepest nesting of arrays and objects. */
  maxDepth: number;
  /** Longest array. */
  maxArrayItems: number;
  /** Most keys in one object. */
  maxObjectKeys: number;
  /** Longest string (characters), keys included. */
  maxStringChars: number;
}

/** The gateway's defaults: far above any real request, far below what would hurt. */
export const DEFAULT_JSON_LIMITS: JsonLimits = {
  maxDepth: 64,
  maxArrayItems: 10_000,
  maxObjectKeys: 10_000,
  maxStringChars: 16 * 1024 * 1024,
};

/** A value still to check, and where it sits: its path is built only when it is refused. */
interface Frame {
  value: unknown;
  depth: number;
  parent: Frame | undefined;
  key: string | number;
}

function pathOf(frame: Frame): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at: Frame | undefined = frame; at?.parent !== undefined; at = at.parent) path.push(at.key);
  return path.reverse();
}

function invalid(message: string, path: readonly (string | number)[]): GatewayError {
  const param = path.map(String).join('.');
  return new GatewayError('invalid_request', param ? `${param}: ${message}` : message, { param: param || null });
}

function checkString(value: string, frame: Frame, limits: JsonLimits): void {
  if (value.length > limits.maxStringChars) throw invalid(`string longer than ${limits.maxStringChars} characters`, pathOf(frame));
}

/** Pushes the children of one container, checking its size. */
function expand(frame: Frame, stack: Frame[], limits: JsonLimits): void {
  const { value, depth } = frame;
  if (typeof value === 'string') return checkString(value, frame, limits);
  if (typeof value !== 'object' || value === null) return;
  if (depth > limits.maxDepth) throw invalid(`JSON nested deeper than ${limits.maxDepth} levels`, []);
  if (Array.isArray(value)) {
    if (value.length > limits.maxArrayItems) throw invalid(`array longer than ${limits.maxArrayItems} items`, pathOf(frame));
    value.forEach((item, i) => stack.push({ value: item, depth: depth + 1, parent: frame, key: i }));
    return;
  }
  const keys = Object.keys(value);
  if (keys.length > limits.maxObjectKeys) throw invalid(`object with more than ${limits.maxObjectKeys} keys`, pathOf(frame));
  for (const key of keys) {
    checkString(key, frame, limits);
    stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1, parent: frame, key });
  }
}

/**
 * Checks a parsed JSON value against the limits with an explicit stack (no recursion, so a
 * deeply nested body cannot overflow the call stack), in time linear in the value's size.
 * Throws 400 `invalid_request` naming the offending path.
 */
export function checkJsonLimits(value: unknown, limits: JsonLimits = DEFAULT_JSON_LIMITS): void {
  const stack: Frame[] = [{ value, depth: 1, parent: undefined, key: '' }];
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) expand(frame, stack, limits);
}

/** Index of the quote that closes the string opened at `open`, or the text's length. */
function stringEnd(text: string, open: number): number {
  for (let quote = text.indexOf('"', open + 1); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) return quote;
  }
  return text.length;
}

/**
 * Refuses JSON text nested deeper than `maxDepth` before it is parsed: parsing a body of a few
 * hundred kilobytes of brackets builds hundreds of thousands of containers and holds the event
 * loop for tens of milliseconds, only for the checks after it to refuse them. Strings are
 * skipped with `indexOf`, so a large base64 image costs a native scan, not a loop per character.
 * Malformed text is left to the parser.
 */
export function checkJsonDepth(text: string, maxDepth: number = DEFAULT_JSON_LIMITS.maxDepth): void {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) i = stringEnd(text, i);
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) throw invalid(`JSON nested deeper than ${maxDepth} levels`, []);
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
}
