import fc from 'fast-check';
import { decode as o200kDecode } from 'gpt-tokenizer/encoding/o200k_base';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { anthropicImageTokens, openAiTileTokens } from '../../../src/billing/image-tokens.js';
import { anyVocabularyPieceBound, boundBudget, boundPiece, pieces } from '../../../src/billing/tokenizer.js';
import { promptTokenBound } from '../../../src/chat/admit/prompt-bound.js';
import type { ChatMessage, ChatRequestBody, ChatTool } from '../../../src/providers/chat/chat-types.js';
import { testModel } from '../chat/chat-fakes.js';
import { vendorTokenizers, type VendorTokenizer } from './vendor-tokenizers.js';

const TOKENIZERS = vendorTokenizers();
const OTHER = testModel({ context_length: 10_000_000 });
const O200K = testModel({ context_length: 10_000_000, tokenizer: 'o200k' });

/** Worst vendor count / bound seen per tokenizer, over single texts and whole requests. */
const worst = new Map<string, { text: number; request: number; sample: string }>(TOKENIZERS.map((t) => [t.name, { text: 0, request: 0, sample: '' }]));

afterAll(() => {
  const rows = [...worst].map(([name, w]) => ({ tokenizer: name, 'worst text ratio': w.text.toFixed(3), 'worst request ratio': w.request.toFixed(3), 'worst text': JSON.stringify(w.sample.slice(0, 40)) }));
  console.table(rows);
});

// ---- text arbitraries: the shapes a client can send ----
const cjk = fc.array(fc.integer({ min: 0x4e00, max: 0x9fff }), { maxLength: 40 }).map((cps) => String.fromCodePoint(...cps));
const emoji = fc.array(fc.constantFrom('🎉', '👍🏽', '👨‍👩‍👧', '🇫🇷', '❤️', '😀', '🧪', '✨', ' '), { maxLength: 30 }).map((a) => a.join(''));
const code = fc.array(fc.constantFrom('function ', 'foo', '(x) ', '{ ', 'return ', 'x * 2; ', '}\n', '  if (a && b) ', '=> ', 'const ', '[];', '\t', '#include <stdio.h>\n', 'def f(self):\n    ', '0x1F', '!==', '/* c */'), { maxLength: 40 }).map((a) => a.join(''));
const numbers = fc.array(fc.oneof(fc.integer(), fc.double({ noNaN: true }), fc.bigInt()), { maxLength: 30 }).map((a) => a.join(fc.sample(fc.constantFrom(' ', ',', '', '\n'), 1)[0]));
const whitespace = fc.array(fc.constantFrom(' ', '  ', '\n', '\t', '\r\n', '\u00a0', '\u3000'), { maxLength: 60 }).map((a) => a.join(''));
/** Random letters: words no vocabulary knows, the worst case of the word rule. */
const gibberish = fc.array(fc.stringMatching(/^[A-Za-z]{1,14}$/), { maxLength: 30 }).map((a) => a.join(' '));
/** Words o200k reads as one token that other vocabularies split the most (found by the scan below). */
const splitWords = fc.array(fc.constantFrom('ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz', ' isumaqatigiiss', ' pellentesque', ' consectetur', ' feugiat'), { maxLength: 20 }).map((a) => a.join(''));
const text: fc.Arbitrary<string> = fc.oneof(
  fc.lorem({ maxCount: 40, mode: 'sentences' }),
  fc.string({ unit: 'grapheme', maxLength: 80 }),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.string({ unit: 'grapheme-ascii', maxLength: 120 }),
  cjk, emoji, code, numbers, whitespace, gibberish, splitWords,
  fc.array(fc.oneof(fc.lorem({ maxCount: 5 }), cjk, emoji, code, numbers, gibberish, splitWords), { maxLength: 5 }).map((a) => a.join(' ')),
);

const schema: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{ node: Record<string, unknown> }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    fc.record({ type: fc.constantFrom('string', 'number', 'integer', 'boolean'), description: text }),
    fc.record({ type: fc.constant('object'), properties: fc.dictionary(fc.stringMatching(/^[a-z_]{1,12}$/), tie('node'), { maxKeys: 4 }), required: fc.array(fc.stringMatching(/^[a-z_]{1,12}$/), { maxLength: 3 }) }),
    fc.record({ type: fc.constant('array'), items: tie('node') }),
    fc.record({ enum: fc.array(text, { maxLength: 4 }) }),
  ),
})).node;

const tool: fc.Arbitrary<ChatTool> = fc.record({ name: fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,30}$/), description: text, parameters: schema })
  .map((f) => ({ type: 'function', function: f }) as ChatTool);

/** A PNG of a random size, as vendors size it (from its header). */
const image = fc.record({ width: fc.integer({ min: 1, max: 2400 }), height: fc.integer({ min: 1, max: 2400 }) });

const message: fc.Arbitrary<ChatMessage> = fc.oneof(
  fc.record({ role: fc.constantFrom('system', 'user', 'assistant', 'developer'), content: text }) as fc.Arbitrary<ChatMessage>,
  fc.record({ role: fc.constant('user'), content: fc.array(text.map((t) => ({ type: 'text' as const, text: t })), { minLength: 1, maxLength: 3 }) }) as fc.Arbitrary<ChatMessage>,
);

interface Sample {
  messages: ChatMessage[];
  tools: ChatTool[];
  schema?: Record<string, unknown>;
  extra?: Record<string, unknown>;
  images: Array<{ width: number; height: number }>;
}
const sample: fc.Arbitrary<Sample> = fc.record({
  messages: fc.array(message, { minLength: 1, maxLength: 4 }),
  tools: fc.array(tool, { maxLength: 3 }),
  schema: fc.option(schema, { nil: undefined }),
  extra: fc.option(fc.dictionary(fc.constantFrom('functions', 'prediction', 'instructions', 'x_custom'), fc.oneof(text, schema), { maxKeys: 2 }), { nil: undefined }),
  images: fc.array(image, { maxLength: 2 }),
});

async function pngDataUrl({ width, height }: { width: number; height: number }): Promise<string> {
  const png = await sharp({ create: { width, height, channels: 3, background: { r: 200, g: 30, b: 90 } } }).png({ compressionLevel: 1 }).toBuffer();
  return `data:image/png;base64,${png.toString('base64')}`;
}

async function bodyOf(s: Sample): Promise<{ body: ChatRequestBody; texts: string[] }> {
  const messages = [...s.messages];
  if (s.images.length > 0) {
    const parts = await Promise.all(s.images.map(async (d) => ({ type: 'image_url' as const, image_url: { url: await pngDataUrl(d) } })));
    messages.push({ role: 'user', content: [{ type: 'text', text: 'describe' }, ...parts] });
  }
  const body: ChatRequestBody = { model: 'm', messages, max_tokens: 1, ...(s.extra ?? {}) };
  if (s.tools.length > 0) body.tools = s.tools;
  if (s.schema !== undefined) body.response_format = { type: 'json_schema', json_schema: { name: 'out', schema: s.schema } };
  // What an upstream reads as text: roles and contents, each tool and schema as JSON, other fields.
  const texts: string[] = [];
  for (const m of messages) {
    texts.push(m.role);
    if (typeof m.content === 'string') texts.push(m.content);
    else for (const p of m.content ?? []) if (p.type === 'text') texts.push(p.text);
  }
  for (const t of s.tools) texts.push(JSON.stringify(t.function));
  if (body.response_format !== undefined) texts.push(JSON.stringify(body.response_format));
  for (const [k, v] of Object.entries(s.extra ?? {})) texts.push(JSON.stringify({ [k]: v }));
  return { body, texts };
}

/** What the vendors add around the texts: OpenAI's 3 per message and 3 priming; Anthropic's 346-token tool prompt. */
function vendorOverhead(body: ChatRequestBody, o200k: boolean): number {
  const framing = 3 + 3 * body.messages.length;
  return framing + (!o200k && (body.tools?.length ?? 0) > 0 ? 346 : 0);
}

function vendorImages(s: Sample, o200k: boolean): number {
  return s.images.reduce((sum, d) => sum + (o200k ? openAiTileTokens(d) : Math.max(openAiTileTokens(d), anthropicImageTokens(d))), 0);
}

/** The bound of one text alone, as the hold bounds each text of a request. */
function textBound(t: string, o200k: boolean): number {
  const budget = boundBudget();
  let n = 0;
  for (const piece of pieces(t)) n += o200k ? boundPiece(piece, budget) : anyVocabularyPieceBound(piece);
  return n;
}

function noteText(tok: VendorTokenizer, t: string, bound: number, count: number): void {
  const w = worst.get(tok.name)!;
  if (bound > 0 && count / bound > w.text) Object.assign(w, { text: count / bound, sample: t });
}

describe('the hold bounds every billed input for every vendor tokenizer', () => {
  it('bounds the words o200k reads as one token, in every vocabulary (no multiple of o200k is safe)', () => {
    const words: string[] = [];
    // Every 16th token id (the whole vocabulary takes most of a minute), plus the worst ones a full scan found.
    for (let id = 0; id < 199_998; id += 16) {
      const t = o200kDecode([id]);
      if (/^ ?[A-Za-z]+$/.test(t)) words.push(t);
    }
    words.push('ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz', ' isumaqatigiiss');
    const factors: Record<string, unknown>[] = [];
    for (const tok of TOKENIZERS) {
      let most = 0;
      let word = '';
      const over: string[] = [];
      for (const w of words) {
        const n = Math.max(0, tok.count(w) - tok.prefix);
        if (n > anyVocabularyPieceBound(w)) over.push(w);
        if (n > most) [most, word] = [n, w];
      }
      expect(over, tok.name).toEqual([]);
      factors.push({ tokenizer: tok.name, 'most tokens for one o200k word token': most, word });
    }
    console.table(factors);
  }, 300_000);

  it('bounds each text alone, for the family the model declares', () => {
    fc.assert(
      fc.property(text, (t) => {
        for (const tok of TOKENIZERS) {
          // The dummy leading space comes once per prompt, within the request's overhead.
          const count = Math.max(0, tok.count(t) - tok.prefix);
          const bound = textBound(t, tok.o200k);
          noteText(tok, t, bound, count);
          expect(count, `${tok.name} on ${JSON.stringify(t)}`).toBeLessThanOrEqual(bound);
        }
      }),
      { numRuns: 1_000, seed: 20261125 },
    );
  }, 300_000);

  it('bounds whole requests: messages, tools, schemas, passthrough fields and images', async () => {
    await fc.assert(
      fc.asyncProperty(sample, async (s) => {
        const { body, texts } = await bodyOf(s);
        const bounds = { o200k: await promptTokenBound(body, O200K), other: await promptTokenBound(body, OTHER) };
        for (const tok of TOKENIZERS) {
          const count = texts.reduce((sum, t) => sum + tok.count(t), vendorOverhead(body, tok.o200k) + vendorImages(s, tok.o200k));
          const bound = tok.o200k ? bounds.o200k : bounds.other;
          const w = worst.get(tok.name)!;
          w.request = Math.max(w.request, count / bound);
          expect(count, tok.name).toBeLessThanOrEqual(bound);
        }
        // The o200k-family bound is never looser than the any-vocabulary one.
        expect(bounds.o200k).toBeLessThanOrEqual(bounds.other);
      }),
      { numRuns: 25, seed: 20261125 },
    );
  }, 240_000);
});
