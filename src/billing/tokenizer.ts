import { countTokens as countO200k, decode, encode } from 'gpt-tokenizer/encoding/o200k_base';
import { BoundedMemo } from '../platform/util/index.js';

// Client text may contain strings like "<|endoftext|>"; they are counted as plain text
// instead of being rejected.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * o200k_base's pre-tokenizer (as in tiktoken and gpt-tokenizer). BPE never merges across
 * its pieces, so a text's token count is the sum of its pieces' counts.
 */
const O200K_PIECES = new RegExp(
  String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
  'gu',
);

/**
 * Longest piece given to BPE in one call. BPE cost grows faster than linearly in a piece's
 * length (a run of one repeated character is one piece), so longer pieces are sliced; with
 * this bound the work per character is bounded and counting is linear in the text.
 */
export const MAX_BPE_PIECE = 256;

/** Per-message framing overhead of the chat format (role markers, separators). */
const TOKENS_PER_MESSAGE = 3;
/** Tokens that prime the assistant's reply. */
const REPLY_PRIMING_TOKENS = 3;
/** Flat count per image part for billing without upstream usage (OpenAI's low-detail cost). */
const TOKENS_PER_IMAGE = 85;
/**
 * Upper bound per image part for admission holds: the largest per-image prompt of the
 * providers served (OpenAI high detail at most 1,445; Anthropic about 1,600).
 */
export const MAX_TOKENS_PER_IMAGE = 1_600;

/** Bytes of a string in UTF-8, without allocating (a UTF-16 unit is 1–3 bytes, a pair 4). */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Splits a piece into slices of at most MAX_BPE_PIECE units (with their offsets), never inside a surrogate pair. */
function* slices(piece: string): Generator<[number, string]> {
  for (let start = 0; start < piece.length; ) {
    let end = Math.min(piece.length, start + MAX_BPE_PIECE);
    const last = piece.charCodeAt(end - 1);
    if (end < piece.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    yield [start, piece.slice(start, end)];
    start = end;
  }
}

/**
 * Texts up to this length are split in one `String.prototype.match` call, which returns the
 * pieces as plain strings: more than twice as fast as `matchAll`, which builds a match object
 * per piece. Longer texts are split lazily, so a huge one never holds all its pieces at once.
 */
const EAGER_SPLIT_CHARS = 16_384;

function* lazyPieces(text: string): Generator<string> {
  for (const match of text.matchAll(O200K_PIECES)) yield match[0];
}

/** The o200k pre-tokenizer pieces of a text (a regex scan, linear in the text). */
export function pieces(text: string): Iterable<string> {
  if (text.length > EAGER_SPLIT_CHARS) return lazyPieces(text);
  // `match` with a global regex starts at 0 and leaves lastIndex at 0: sharing it is safe.
  return text.match(O200K_PIECES) ?? [];
}

/** Calls `visit` with each pre-tokenizer piece of a text. */
function forEachPiece(text: string, visit: (piece: string) => void): void {
  for (const piece of pieces(text)) visit(piece);
}

/** Counts one bounded piece with BPE; the hook lets tests observe how much text reaches BPE. */
let encodePiece = (piece: string): number => countO200k(piece, PLAIN_TEXT);

/**
 * Pieces repeat a lot (words, and the slices of a long run of one character); their counts
 * are remembered in a table of bounded size (at most 8,192 pieces of 256 characters).
 */
const MEMO_PIECE_CHARS = 256;
const MEMO_ENTRIES = 8_192;
const memo = new BoundedMemo((piece) => encodePiece(piece), MEMO_ENTRIES);

function bpe(piece: string): number {
  return piece.length > MEMO_PIECE_CHARS ? encodePiece(piece) : memo.get(piece);
}

/** Replaces the BPE counter (tests use it to assert bounded work); returns the previous one. */
export function setBpeCounterForTests(counter: (piece: string) => number): (piece: string) => number {
  const previous = encodePiece;
  encodePiece = counter;
  memo.clear();
  return previous;
}

/**
 * Characters of a prompt whose pieces the upper bound counts with BPE; beyond them pieces
 * count their UTF-8 bytes. Caps the CPU one estimate can take (a few hundred ms of BPE at
 * most) while prompts up to about 64 K tokens still get a tight bound.
 */
export const BOUND_BPE_CHARS = 262_144;

/** What is left of a prompt's BPE allowance while bounding it. */
export interface BoundBudget {
  left: number;
}

/** A fresh allowance for one prompt. */
export function boundBudget(): BoundBudget {
  return { left: BOUND_BPE_CHARS };
}

/**
 * Counts tokens of a text with the o200k_base encoding, in time linear in its length.
 * Exact for every pre-tokenizer piece up to MAX_BPE_PIECE characters, which covers natural
 * language and code; a longer piece (a run of one character, a long unbroken blob) is
 * counted in slices, which differs from an unsliced count by at most about one token per
 * slice boundary because BPE merges cannot cross a boundary. That keeps the count a
 * faithful measure of produced text while no input can make counting superlinear.
 */
export function countTokens(text: string): number {
  if (text === '') return 0;
  let total = 0;
  forEachPiece(text, (piece) => {
    total += countPiece(piece);
  });
  return total;
}

/** Tokens of one pre-tokenizer piece as `countTokens` counts them. */
export function countPiece(piece: string): number {
  if (piece.length <= MAX_BPE_PIECE) return bpe(piece);
  let total = 0;
  for (const [, slice] of slices(piece)) total += bpe(slice);
  return total;
}

/**
 * An upper bound of one piece's tokens in any vendor's vocabulary: its UTF-8 bytes. Every token
 * of a byte-level BPE (cl100k, Llama 3, Tekken, Claude) or of a SentencePiece vocabulary with
 * byte fallback (Llama 2, Mistral v1) covers at least one byte, so this holds whatever the
 * vocabulary (SentencePiece's dummy leading space, once per prompt, is within the request
 * overhead). No multiple of the o200k count is safe: a word o200k reads as one token takes up
 * to 6 tokens in cl100k and Llama 3, 13 in Tekken and 17 in 32 K SentencePiece vocabularies
 * (measured over o200k's vocabulary; see docs/money-and-holds.md, "How holds bound a request").
 */
export function anyVocabularyPieceBound(piece: string): number {
  return utf8Bytes(piece);
}

/** An upper bound of one piece's tokens: BPE while the allowance lasts, else its UTF-8 bytes. */
export function boundPiece(piece: string, budget: BoundBudget): number {
  if (piece.length > MAX_BPE_PIECE || piece.length > budget.left) return utf8Bytes(piece);
  budget.left -= piece.length;
  return bpe(piece);
}

/**
 * An upper bound of a text's o200k_base token count, linear in its length. Pieces up to
 * MAX_BPE_PIECE characters are counted exactly (within the prompt's BPE allowance); a
 * longer piece, or any piece after the allowance, counts its UTF-8 bytes, which bounds it
 * because every token covers at least one byte.
 */
export function tokenUpperBound(text: string, budget: BoundBudget = boundBudget()): number {
  if (text === '') return 0;
  let total = 0;
  forEachPiece(text, (piece) => {
    total += boundPiece(piece, budget);
  });
  return total;
}

/** A text cut to a token budget. */
export interface Truncated {
  text: string;
  /** True when something was cut off. */
  truncated: boolean;
}

/** Drops trailing code units until `countTokens` agrees with the budget (a cut BPE prefix may re-merge). */
function withinBudget(text: string, safe: string, max: number): string {
  let out = text;
  for (let tries = 0; tries < 4 && out.length > safe.length; tries++) {
    if (countTokens(out) <= max) return out;
    out = out.slice(0, -1);
  }
  return countTokens(out) <= max ? out : safe;
}

/**
 * The longest prefix of a text that `countTokens` counts as at most `max` tokens. Works
 * piece by piece like `countTokens` and stops at the budget, so its work is linear in what
 * it keeps, whatever the text's length.
 */
export function truncateToTokens(text: string, max: number): Truncated {
  if (text === '') return { text, truncated: false };
  if (max <= 0) return { text: '', truncated: true };
  let used = 0;
  let end = 0;
  for (const match of text.matchAll(O200K_PIECES)) {
    for (const [offset, slice] of slices(match[0])) {
      const n = bpe(slice);
      if (used + n <= max) {
        used += n;
        end = match.index + offset + slice.length;
        continue;
      }
      const partial = decode(encode(slice, PLAIN_TEXT).slice(0, max - used));
      const safe = text.slice(0, end);
      return { text: withinBudget(safe + partial, safe, max), truncated: true };
    }
  }
  return { text, truncated: false };
}

/**
 * A chat message as far as counting reads it (the chat message type of the providers has this
 * shape): its role, its text or parts (a part that is not text counts as an image), a name and
 * tool calls.
 */
export interface CountedMessage {
  readonly role: string;
  readonly content?: string | readonly CountedPart[] | null;
  readonly name?: string;
  readonly tool_calls?: ReadonlyArray<{ readonly id?: string; readonly type?: 'function'; readonly function: { readonly name: string; readonly arguments: string } }>;
}

/** A part of a message's content: text, or an image (counted by a flat amount, never read). */
export type CountedPart = { readonly type: 'text'; readonly text: string } | { readonly type: 'image_url'; readonly image_url: unknown };

/** The texts of a conversation to count, and what its framing and images add. */
export interface PromptTexts {
  texts: string[];
  /** Framing tokens: reply priming, per-message overhead, name separators. */
  framing: number;
  images: number;
  /** The image parts' URLs (data URLs or remote), in order. */
  imageUrls: string[];
}

/** Collects the texts a prompt's token count is made of (roles, content, names, tool calls). */
export function promptTexts(messages: readonly CountedMessage[]): PromptTexts {
  const texts: string[] = [];
  let framing = REPLY_PRIMING_TOKENS;
  const imageUrls: string[] = [];
  for (const message of messages) {
    framing += TOKENS_PER_MESSAGE;
    texts.push(message.role);
    const content = message.content;
    if (typeof content === 'string') texts.push(content);
    else if (Array.isArray(content)) {
      for (const part of content) {
        if (part.type === 'text') texts.push(part.text);
        else imageUrls.push(part.image_url.url);
      }
    }
    if (typeof message.name === 'string') {
      texts.push(message.name);
      framing += 1;
    }
    for (const call of message.tool_calls ?? []) texts.push(call.function.name, call.function.arguments);
  }
  return { texts, framing, images: imageUrls.length, imageUrls };
}

/** Per-image tokens: a flat count for billing, the largest amount for holds. */
export const IMAGE_TOKENS = { count: TOKENS_PER_IMAGE, bound: MAX_TOKENS_PER_IMAGE } as const;

/**
 * Counts the prompt tokens of a conversation the way OpenAI's chat format frames it: text,
 * names, tool calls and a flat amount per image. Used when an upstream reports no usage.
 */
export function countMessageTokens(messages: readonly CountedMessage[]): number {
  const { texts, framing, images } = promptTexts(messages);
  return texts.reduce((sum, text) => sum + countTokens(text), framing + images * IMAGE_TOKENS.count);
}

/**
 * An upper bound of a conversation's prompt tokens for admission holds: the same framing,
 * each text bounded by `tokenUpperBound`, and the largest per-image amount.
 */
export function promptTokenUpperBound(messages: readonly CountedMessage[]): number {
  const { texts, framing, images } = promptTexts(messages);
  const budget = boundBudget();
  return texts.reduce((sum, text) => sum + tokenUpperBound(text, budget), framing + images * IMAGE_TOKENS.bound);
}
