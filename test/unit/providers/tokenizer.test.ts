import fc from 'fast-check';
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import {
  BOUND_BPE_CHARS,
  countMessageTokens,
  countPiece,
  countTokens,
  MAX_BPE_PIECE,
  MAX_TOKENS_PER_IMAGE,
  pieces,
  promptTokenUpperBound,
  setBpeCounterForTests,
  tokenUpperBound,
  truncateToTokens,
} from '../../../src/billing/tokenizer.js';
import { countMessageTokensAsync, countTokensAsync, promptTokenUpperBoundAsync, sumPieces, YIELD_EVERY_CHARS } from '../../../src/billing/token-count-async.js';

describe('tokenizer', () => {
  it('counts o200k tokens and treats special-token strings as text', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('Hello')).toBe(1);
    expect(countTokens('Hello world')).toBe(2);
    expect(countTokens('<|endoftext|>')).toBeGreaterThan(1);
  });

  it('counts message framing, text, tool calls and images', () => {
    const base = countMessageTokens([{ role: 'user', content: 'Hello world' }]);
    expect(base).toBe(3 + 3 + countTokens('user') + 2);
    const withImage = countMessageTokens([{ role: 'user', content: [{ type: 'text', text: 'Hello world' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AA' } }] }]);
    expect(withImage).toBe(base + 85);
    const withCall = countMessageTokens([
      { role: 'user', content: 'Hello world' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }] },
    ]);
    expect(withCall).toBeGreaterThan(base + 3 + countTokens('lookup'));
  });
});

describe('linear counting and the upper bound', () => {
  const exact = (text: string): number => countO200k(text, { disallowedSpecial: new Set<string>() });
  // Text that mixes what the o200k pre-tokenizer treats differently: letter case, digits,
  // punctuation, whitespace runs, newlines, contractions, non-Latin scripts and emoji.
  const alphabet = ['a', 'b', 'Z', 'é', '9', ' ', '  ', '\n', '\t', '!', "'s", '.', '{', '"', 'ж', '中', '😀', '\u0301', '<|endoftext|>'];
  const text = fc.array(fc.constantFrom(...alphabet), { maxLength: 200 }).map((parts) => parts.join(''));
  const runs = fc.tuple(fc.constantFrom(...alphabet), fc.integer({ min: 1, max: 2_000 }), text).map(([unit, n, tail]) => unit.repeat(n) + tail);

  it('the upper bound is never below the exact o200k count', () => {
    fc.assert(fc.property(fc.oneof(text, runs, fc.string({ unit: 'grapheme', maxLength: 300 })), (t) => tokenUpperBound(t) >= exact(t)), { numRuns: 300 });
  });

  it('splits short texts at once and long ones lazily, into pieces that cover the text and count exactly', () => {
    // Past the one-call limit (16,384 characters) the lazy path splits the text.
    const long = fc.tuple(text, fc.integer({ min: 16_500, max: 17_500 })).map(([t, n]) => 'Ab cd, '.repeat(Math.ceil(n / 7)) + t);
    fc.assert(
      fc.property(fc.oneof(text, long), (t) => {
        const split = [...pieces(t)];
        expect(split.join('')).toBe(t);
        fc.pre(split.every((piece) => piece.length > 0 && piece.length <= MAX_BPE_PIECE));
        // gpt-tokenizer splits with its own copy of the pre-tokenizer: other cuts would count differently.
        expect(split.reduce((sum, piece) => sum + countPiece(piece), 0)).toBe(exact(t));
      }),
      { numRuns: 100 },
    );
  });

  it('counts natural text exactly and long runs within one token per slice', () => {
    fc.assert(fc.property(text, (t) => countTokens(t) === exact(t)), { numRuns: 300 });
    const run = 'a'.repeat(5_000);
    const slicesCount = Math.ceil(run.length / MAX_BPE_PIECE);
    expect(Math.abs(countTokens(run) - exact(run))).toBeLessThanOrEqual(slicesCount);
  });

  it('never hands BPE more than a bounded piece, and no more text than it was given', () => {
    const seen: number[] = [];
    const previous = setBpeCounterForTests((piece) => {
      seen.push(piece.length);
      return 1;
    });
    try {
      const hostile = ['a'.repeat(100_000), ' '.repeat(100_000), 'aA'.repeat(50_000), '😀'.repeat(50_000), '9'.repeat(100_000)];
      for (const t of hostile) {
        seen.length = 0;
        tokenUpperBound(t);
        countTokens(t);
        expect(Math.max(0, ...seen)).toBeLessThanOrEqual(MAX_BPE_PIECE);
        // Each character reaches BPE at most once per call: work is linear in the input.
        expect(seen.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(2 * t.length);
      }
      seen.length = 0;
      // A run of one character longer than a piece is bounded by its bytes, without BPE.
      expect(tokenUpperBound('a'.repeat(100_000))).toBe(100_000);
      expect(seen).toEqual([]);
    } finally {
      setBpeCounterForTests(previous);
    }
  });

  it('bounds a prompt by framing, text bounds and the largest per-image amount', () => {
    const messages = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Hello world' }, { type: 'image_url' as const, image_url: { url: 'data:image/png;base64,AA' } }] }];
    expect(promptTokenUpperBound(messages)).toBe(countMessageTokens(messages) - 85 + MAX_TOKENS_PER_IMAGE);
  });

  it('truncates to a token budget and the kept text counts within it', () => {
    fc.assert(
      fc.property(fc.oneof(text, runs), fc.integer({ min: 0, max: 300 }), (t, max) => {
        const out = truncateToTokens(t, max);
        expect(t.startsWith(out.text) || out.text.includes('\ufffd')).toBe(true);
        expect(countTokens(out.text)).toBeLessThanOrEqual(max);
        expect(out.truncated).toBe(countTokens(t) > max);
      }),
      { numRuns: 200 },
    );
  });
});

describe('counting long prompts without holding the event loop', () => {
  it('gives the same figures as the synchronous counts and lets other work run in between', async () => {
    const messages = [
      { role: 'system' as const, content: 'You are terse.' },
      { role: 'user' as const, content: `${'aA'.repeat(100_000)} ${'word '.repeat(20_000)}` },
    ];
    let turns = 0;
    let running = true;
    const tick = (): void => {
      turns += 1;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    const [bound, count] = [await promptTokenUpperBoundAsync(messages), await countMessageTokensAsync(messages)];
    running = false;
    expect(bound).toBe(promptTokenUpperBound(messages));
    expect(count).toBe(countMessageTokens(messages));
    expect(await countTokensAsync(messages[1]!.content)).toBe(countTokens(messages[1]!.content));
    // 300 K characters counted twice: other callbacks ran at least once per slice.
    expect(turns).toBeGreaterThanOrEqual(Math.floor((2 * 300_000) / YIELD_EVERY_CHARS) - 2);
  });
});

describe('counting short prompts at once', () => {
  it('answers a number, not a promise, below one slice of characters, with the counts the texts have', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 2_000 }), { maxLength: 6 }), (texts) => {
        const summed = sumPieces(texts, countPiece);
        expect(summed).not.toBeInstanceOf(Promise);
        expect(summed).toBe(texts.reduce((sum, text) => sum + countTokens(text), 0));
      }),
    );
  });

  it('answers a promise from one slice of characters on', async () => {
    const texts = ['a '.repeat(YIELD_EVERY_CHARS / 4), 'b '.repeat(YIELD_EVERY_CHARS / 4)];
    const summed = sumPieces(texts, countPiece);
    expect(summed).toBeInstanceOf(Promise);
    expect(await summed).toBe(countTokens(texts[0]!) + countTokens(texts[1]!));
  });
});

describe('the BPE allowance of one prompt bound', () => {
  it('stops using BPE after BOUND_BPE_CHARS characters and bounds the rest by bytes', () => {
    const word = (i: number): string => {
      let out = '';
      for (let n = i + 1; n > 0; n = Math.floor(n / 26)) out += String.fromCharCode(97 + (n % 26));
      return out;
    };
    // About 1.2 MB of distinct words, so nothing is remembered from piece to piece.
    const text = Array.from({ length: 200_000 }, (_, i) => word(i)).join(' ');
    let seen = 0;
    const previous = setBpeCounterForTests((piece) => {
      seen += piece.length;
      return exactPiece(piece);
    });
    try {
      const bound = promptTokenUpperBound([{ role: 'user', content: text }]);
      expect(seen).toBeLessThanOrEqual(BOUND_BPE_CHARS + 8);
      expect(bound).toBeGreaterThanOrEqual(countO200k(text, { disallowedSpecial: new Set<string>() }));
    } finally {
      setBpeCounterForTests(previous);
    }
    // The exact reference count of 1.2 MB is slow on a loaded machine; the bound itself is not.
  }, 120_000);
});

function exactPiece(piece: string): number {
  return countO200k(piece, { disallowedSpecial: new Set<string>() });
}
