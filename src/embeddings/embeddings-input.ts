import { GatewayError } from '../platform/errors/index.js';
import type { EmbeddingInput } from '../providers/index.js';

/** Most inputs one request may carry (OpenAI's limit). */
export const MAX_INPUTS = 2_048;
/** Largest token id accepted (ids are int32 on every vendor's wire). */
const MAX_TOKEN_ID = 2 ** 31 - 1;

/** A request's input, checked: its wire shape and one entry per vector to return. */
export interface ParsedInput {
  /** The input as it goes upstream (same shape as the client sent). */
  readonly wire: EmbeddingInput;
  /** One text or token list per vector. */
  readonly items: ReadonlyArray<string | readonly number[]>;
  /** True when `input` was a list of inputs (then `param` of a problem is `input[i]`). */
  readonly listed: boolean;
}

function bad(message: string, param: string): GatewayError {
  return new GatewayError('invalid_request', `${param}: ${message}`, { param });
}

/** `input[i]` for an entry of a list, `input` for a lone input. */
export function inputParam(index: number, listed: boolean): string {
  return listed ? `input[${index}]` : 'input';
}

function isTokenId(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_TOKEN_ID;
}

function checkTokens(tokens: readonly unknown[], param: string): number[] {
  if (tokens.length === 0) throw bad('must not be empty', param);
  const bad_ = tokens.findIndex((t) => !isTokenId(t));
  if (bad_ >= 0) throw bad(`token ids are integers from 0 to ${MAX_TOKEN_ID}`, `${param}[${bad_}]`);
  return tokens as number[];
}

/** One entry of a list of inputs: a non-empty string or a non-empty list of token ids. */
function entryOf(value: unknown, index: number): string | number[] {
  const param = inputParam(index, true);
  if (typeof value === 'string') {
    if (value === '') throw bad('must not be an empty string', param);
    return value;
  }
  if (Array.isArray(value)) return checkTokens(value, param);
  throw bad('each input is a string or a list of token ids', param);
}

/** A list whose entries are all strings or all token lists (OpenAI does not mix them). */
function listOf(input: unknown[]): ParsedInput {
  if (input.length === 0) throw bad('must not be empty', 'input');
  if (input.length > MAX_INPUTS) throw bad(`at most ${MAX_INPUTS} inputs per request`, 'input');
  if (input.every((v) => typeof v === 'number')) {
    const tokens = checkTokens(input, 'input');
    return { wire: tokens, items: [tokens], listed: false };
  }
  const items = input.map(entryOf);
  const kind = typeof items[0];
  const mixed = items.findIndex((item) => typeof item !== kind);
  if (mixed >= 0) throw bad('inputs of one request are all strings or all token lists', inputParam(mixed, true));
  return { wire: items as string[] | number[][], items, listed: true };
}

/**
 * Checks `input` as OpenAI accepts it: a string, a list of strings, a list of token ids, or a
 * list of such lists; at most 2,048 inputs, none empty. Problems are 400s whose `param` names
 * the input (`input[3]`).
 */
export function parseEmbeddingInput(input: unknown): ParsedInput {
  if (typeof input === 'string') {
    if (input === '') throw bad('must not be an empty string', 'input');
    return { wire: input, items: [input], listed: false };
  }
  if (Array.isArray(input)) return listOf(input);
  throw bad('must be a string, a list of strings, a list of token ids or a list of token-id lists', 'input');
}
