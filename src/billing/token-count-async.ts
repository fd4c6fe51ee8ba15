import { type MaybePromise } from '../platform/util/index.js';
import { boundBudget, boundPiece, countPiece, IMAGE_TOKENS, pieces, promptTexts, type CountedMessage } from './tokenizer.js';

/**
 * Characters counted between two yields to the event loop. Counting is linear, but a
 * 20 MB prompt is still seconds of work; yielding keeps any one slice of it to a few
 * milliseconds so other requests and `/healthz` are served meanwhile.
 */
export const YIELD_EVERY_CHARS = 16_384;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Sums `perPiece` over every piece of every text, yielding every YIELD_EVERY_CHARS characters:
 * at once for texts too short to yield even once (most prompts), else as a promise.
 */
export function sumPieces(texts: readonly string[], perPiece: (piece: string) => number): MaybePromise<number> {
  let chars = 0;
  for (const text of texts) chars += text.length;
  if (chars >= YIELD_EVERY_CHARS) return sumYielding(texts, perPiece);
  let total = 0;
  for (const text of texts) for (const piece of pieces(text)) total += perPiece(piece);
  return total;
}

async function sumYielding(texts: readonly string[], perPiece: (piece: string) => number): Promise<number> {
  let total = 0;
  let since = 0;
  for (const text of texts) {
    for (const piece of pieces(text)) {
      total += perPiece(piece);
      since += piece.length;
      if (since >= YIELD_EVERY_CHARS) {
        since = 0;
        await nextTurn();
      }
    }
  }
  return total;
}

/** `countMessageTokens` that yields to the event loop on long prompts (same result). */
export async function countMessageTokensAsync(messages: readonly CountedMessage[]): Promise<number> {
  const { texts, framing, images } = promptTexts(messages);
  return framing + images * IMAGE_TOKENS.count + (await sumPieces(texts, countPiece));
}

/** `promptTokenUpperBound` that yields to the event loop on long prompts (same result). */
export async function promptTokenUpperBoundAsync(messages: readonly CountedMessage[]): Promise<number> {
  const { texts, framing, images } = promptTexts(messages);
  const budget = boundBudget();
  return framing + images * IMAGE_TOKENS.bound + (await sumPieces(texts, (piece) => boundPiece(piece, budget)));
}

/** `countTokens` of one text that yields to the event loop on long texts (same result). */
export async function countTokensAsync(text: string): Promise<number> {
  return sumPieces([text], countPiece);
}

