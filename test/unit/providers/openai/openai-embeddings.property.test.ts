import fc from 'fast-check';
import { GatewayError } from '../../../../src/platform/errors/gateway-error.js';
import { describe, expect, it } from 'vitest';
import { embeddingsJson } from '../../../../src/embeddings/embeddings-wire.js';
import { fromOpenAiEmbeddings, fromOpenAiEmbeddingsBytes } from '../../../../src/providers/openai/openai-embeddings-response.js';
import { cutVectorLists } from '../../../../src/providers/embeddings/vector-skeleton.js';

const space = fc.constantFrom('', ' ', '\n  ', '\t', '\r\n');
/** Floats as vendors write them: plain, exponent and integer forms, negative zero. */
const float = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true, min: -10, max: 10 }), fc.constantFrom(0, -0, 1e-7, -2.5e-5, 3));
const vectors = fc.array(fc.array(float, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 6 });

/** A body in OpenAI's shape, in `order`, with `pad` spliced in wherever JSON allows whitespace. */
function bodyText(lists: number[][], order: number[], pad: string): string {
  const items = order.map((index) => `{${pad}"object":"embedding",${pad}"index":${index},"embedding"${pad}:${pad}[${pad}${(lists[index] ?? []).map((x) => JSON.stringify(x)).join(`${pad},${pad}`)}${pad}]}`);
  return `{"object":"list","data":[${items.join(',')}],"model":"m","usage":{"prompt_tokens":5,"total_tokens":5}}`;
}

describe('embeddings bodies relayed as bytes', () => {
  it('decode to the full parse’s vectors and answer with the same values, in input order', async () => {
    await fc.assert(
      fc.asyncProperty(vectors, space, fc.integer(), async (lists, pad, seed) => {
        const order = lists.map((_, i) => i).sort((a, b) => ((a * 7919 + seed) % 13) - ((b * 7919 + seed) % 13));
        const text = bodyText(lists, order, pad);
        const fast = fromOpenAiEmbeddingsBytes(Buffer.from(text), lists.length);
        const full = fromOpenAiEmbeddings(JSON.parse(text), lists.length);
        expect(fast.raw).toHaveLength(lists.length);
        expect(fast.vectors.map((v) => Array.from(v))).toEqual(full.vectors.map((v) => Array.from(v)));
        const answer = JSON.parse((await embeddingsJson('m', fast, 'float', { promptTokens: 5, cost: 0.1 })).toString('utf8'));
        expect(answer.data.map((item: { embedding: number[] }) => item.embedding)).toEqual(JSON.parse(JSON.stringify(lists)));
        expect(answer.usage).toEqual({ prompt_tokens: 5, total_tokens: 5, cost: 0.1 });
      }),
      { numRuns: 300 },
    );
  });

  it('never relay a hostile body as anything but what its full parse reads', async () => {
    await fc.assert(
      fc.asyncProperty(vectors, fc.string({ unit: 'binary', maxLength: 12 }), fc.nat(), async (lists, junk, where) => {
        const clean = bodyText(lists, lists.map((_, i) => i), '');
        const at = where % clean.length;
        const text = `${clean.slice(0, at)}${junk}${clean.slice(at)}`;
        let full: number[][] | undefined;
        try {
          full = fromOpenAiEmbeddings(JSON.parse(text), lists.length).vectors.map((v) => Array.from(v));
        } catch {
          full = undefined;
        }
        let answer: { data: Array<{ embedding: number[] }> } | undefined;
        try {
          answer = JSON.parse((await embeddingsJson('m', fromOpenAiEmbeddingsBytes(Buffer.from(text), lists.length), 'float', { promptTokens: 5, cost: 0 })).toString('utf8'));
        } catch (err) {
          expect(err).toBeInstanceOf(GatewayError);
        }
        expect(answer?.data.map((item) => item.embedding)).toEqual(full);
      }),
      { numRuns: 500 },
    );
  });

  it('cut out exactly the lists of finite JSON numbers that the grammar names', () => {
    // The grammar: JSON numbers with at most 21 integer digits and a positive exponent of at
    // most two digits, comma-separated, with JSON whitespace around them.
    const number = String.raw`-?(?:0|[1-9]\d{0,20})(?:\.\d+)?(?:[eE](?:-\d+|\+?\d{1,2}))?`;
    const list = new RegExp(`^[ \t\n\r]*${number}(?:[ \t\n\r]*,[ \t\n\r]*${number})*[ \t\n\r]*$`);
    const chars = fc.constantFrom(...'0123456789-+.eE, \t'.split(''), '1', '5', ',', '0');
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 30 }).map((cs) => cs.join('')), (inner) => {
        const cut = cutVectorLists(Buffer.from(`{"embedding":[${inner}]}`));
        expect(cut !== undefined).toBe(list.test(inner));
      }),
      { numRuns: 3000 },
    );
  });
});
