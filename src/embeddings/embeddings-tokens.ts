import { countPiece, MAX_BPE_PIECE, pieces } from '../billing/index.js';
import { GatewayError } from '../platform/errors/index.js';
import { inputParam, type ParsedInput } from './embeddings-input.js';

/** Most tokens summed over a request's inputs (OpenAI's limit; it also bounds counting work). */
export const MAX_REQUEST_TOKENS = 300_000;
/** Characters counted between two yields to the event loop (a few milliseconds of work). */
const YIELD_EVERY_CHARS = 16_384;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The slices `countTokens` counts a long piece in (never cutting a surrogate pair). */
function* slicesOf(piece: string): Generator<string> {
  for (let start = 0; start < piece.length; ) {
    let end = Math.min(piece.length, start + MAX_BPE_PIECE);
    const last = piece.charCodeAt(end - 1);
    if (end < piece.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    yield piece.slice(start, end);
    start = end;
  }
}

/** Counting state: the yield cadence is shared by every input of a request. */
interface Pace {
  since: number;
}

/**
 * Tokens of one text as `countTokens` counts them (o200k_base, long pieces in slices), but
 * stopping as soon as `limit` is passed and yielding to the event loop every few thousand
 * characters: a hostile input costs at most about `limit` tokens of work and never blocks.
 */
async function countUpTo(text: string, limit: number, pace: Pace): Promise<number> {
  let total = 0;
  for (const piece of pieces(text)) {
    for (const slice of piece.length > MAX_BPE_PIECE ? slicesOf(piece) : [piece]) {
      total += countPiece(slice);
      pace.since += slice.length;
      if (total > limit) return total;
      if (pace.since >= YIELD_EVERY_CHARS) {
        pace.since = 0;
        await nextTurn();
      }
    }
  }
  return total;
}

function tooLong(index: number, listed: boolean, limit: number): GatewayError {
  const param = inputParam(index, listed);
  return new GatewayError('invalid_request', `${param} is longer than the model's context of ${limit} tokens; shorten or split it.`, { param });
}

/**
 * Exact token count of each input: texts with the gateway's tokenizer (o200k_base, linear
 * time), token-id lists by their length. An input over the model's context is a 400 naming it
 * (`input[3]`); a request over MAX_REQUEST_TOKENS in total is a 400 on `input`.
 */
export async function countInputTokens(input: ParsedInput, contextLength: number): Promise<number[]> {
  const counts: number[] = [];
  const pace: Pace = { since: 0 };
  let total = 0;
  for (const [index, item] of input.items.entries()) {
    const left = MAX_REQUEST_TOKENS - total;
    const n = typeof item === 'string' ? await countUpTo(item, Math.min(contextLength, left), pace) : item.length;
    if (n > contextLength) throw tooLong(index, input.listed, contextLength);
    total += n;
    if (total > MAX_REQUEST_TOKENS) {
      throw new GatewayError('invalid_request', `input: the inputs add up to more than ${MAX_REQUEST_TOKENS} tokens; send them in several requests.`, { param: 'input' });
    }
    counts.push(n);
  }
  return counts;
}
