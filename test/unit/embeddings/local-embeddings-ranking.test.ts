import { describe, expect, it } from 'vitest';
import { createLocalEmbeddings, embedText } from '../../../src/providers/local/local-embeddings.js';

/** Sentence, a paraphrase of it, and an unrelated sentence. */
const TRIPLES: ReadonlyArray<readonly [string, string, string]> = [
  ['The cat sat on the mat.', 'A cat was sitting on the mat.', 'Stock markets fell sharply on Monday.'],
  ['How do I reset my password?', 'What are the steps to reset a forgotten password?', 'The recipe needs two cups of flour.'],
  ['The train to Paris leaves at nine in the morning.', 'At 9 am the Paris train departs.', 'Photosynthesis converts light into chemical energy.'],
  ['Refunds are issued within five business days.', 'We issue a refund in five business days.', 'The mountain trail is closed for winter.'],
  ['Install the package with npm install.', 'Use npm to install the package.', 'She painted the fence a bright blue.'],
  ['Our API limits each key to sixty requests per minute.', 'Each API key may make 60 requests a minute.', 'Whales migrate thousands of kilometres each year.'],
  ['The invoice was paid by bank transfer.', 'Payment of the invoice came through a bank transfer.', 'The orchestra tuned their instruments.'],
  ['Running shoes wear out after about 500 miles.', 'After roughly 500 miles, running shoes are worn out.', 'The senate passed the budget bill.'],
];

const dot = (a: Float32Array, b: Float32Array): number => a.reduce((sum, x, i) => sum + x * (b[i] ?? 0), 0);

describe('local hashed n-gram embeddings', () => {
  it.each(TRIPLES)('ranks the paraphrase of "%s" above unrelated text', (anchor, paraphrase, unrelated) => {
    const a = embedText(anchor);
    expect(dot(a, embedText(paraphrase))).toBeGreaterThan(dot(a, embedText(unrelated)));
  });

  it('ranks each paraphrase first among every other sentence of the set (retrieval)', () => {
    const docs = TRIPLES.flatMap(([, paraphrase, unrelated]) => [paraphrase, unrelated]).map((t) => embedText(t));
    TRIPLES.forEach(([anchor], i) => {
      const query = embedText(anchor);
      const scores = docs.map((d) => dot(query, d));
      expect(scores.indexOf(Math.max(...scores))).toBe(2 * i);
    });
  });

  it('is deterministic, unit length, and as long as asked', async () => {
    const first = embedText('same input, same vector');
    expect(Array.from(embedText('same input, same vector'))).toEqual(Array.from(first));
    expect(first).toHaveLength(384);
    expect(Math.hypot(...first)).toBeCloseTo(1, 5);
    const model = createLocalEmbeddings();
    const { vectors } = await model.create({ upstreamModel: 'hashed-ngrams', input: ['a b c', 'a b c'], dimensions: 32, signal: new AbortController().signal });
    expect(vectors.map((v) => v.length)).toEqual([32, 32]);
    expect(Array.from(vectors[0] ?? [])).toEqual(Array.from(vectors[1] ?? []));
  });

  it('embeds token ids like the text they encode', async () => {
    const model = createLocalEmbeddings();
    const signal = new AbortController().signal;
    const { vectors } = await model.create({ upstreamModel: 'hashed-ngrams', input: [[13225, 2375]], signal });
    const { vectors: unknown } = await model.create({ upstreamModel: 'hashed-ngrams', input: [2 ** 30, 7], signal });
    expect(vectors[0]).toHaveLength(384);
    expect(Math.hypot(...Array.from(unknown[0] ?? []))).toBeCloseTo(1, 5);
  });

  it('gives text without letters or digits a zero vector instead of NaN', () => {
    expect(Array.from(embedText('?!…')).every((x) => x === 0)).toBe(true);
  });
});
