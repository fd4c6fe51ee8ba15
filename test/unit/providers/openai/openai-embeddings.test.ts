import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/platform/errors/gateway-error.js';
import { fromOpenAiEmbeddings, fromOpenAiEmbeddingsText } from '../../../../src/providers/openai/openai-embeddings-response.js';
import { toOpenAiEmbeddingsRequest } from '../../../../src/providers/openai/openai-embeddings.js';
import { base64Vector } from '../../../../src/embeddings/embeddings-wire.js';
import { RECORDED_VALUES } from '../../../fixtures/upstreams/fake-openai-embeddings.js';
import { openAiSchema, schemaErrors } from '../../../helpers/openai-spec.js';

describe('OpenAI embeddings request', () => {
  it.each([
    ['a string', 'hello'],
    ['strings', ['a', 'b']],
    ['token ids', [1, 2, 3]],
    ['token-id lists', [[1, 2], [3]]],
  ] as const)('is valid against the spec’s CreateEmbeddingRequest for %s', (_name, input) => {
    const body = toOpenAiEmbeddingsRequest({ upstreamModel: 'text-embedding-3-small', input: input as string | string[] | number[] | number[][], dimensions: 256, user: 'u-1' });
    const validate = openAiSchema('CreateEmbeddingRequest');
    expect(validate(body), schemaErrors(validate)).toBe(true);
    expect(body).toEqual({ model: 'text-embedding-3-small', input, encoding_format: 'float', dimensions: 256, user: 'u-1' });
  });

  it('leaves out what the client did not set', () => {
    expect(toOpenAiEmbeddingsRequest({ upstreamModel: 'm', input: 'x' })).toEqual({ model: 'm', input: 'x', encoding_format: 'float' });
  });
});

describe('OpenAI embeddings response', () => {
  const recorded = {
    object: 'list',
    data: [{ object: 'embedding', index: 0, embedding: [...RECORDED_VALUES] }],
    model: 'text-similarity-babbage:001',
    usage: { prompt_tokens: 8, total_tokens: 8 },
  };

  it('maps the recorded response: vector and prompt_tokens', () => {
    const result = fromOpenAiEmbeddings(recorded, 1);
    expect(Array.from(result.vectors[0] ?? [])).toEqual(RECORDED_VALUES);
    expect(result.promptTokens).toBe(8);
  });

  it('puts vectors in index order and decodes base64 float32', () => {
    const body = {
      data: [
        { index: 1, embedding: base64Vector([0.5, -0.25]) },
        { index: 0, embedding: [1, 2] },
      ],
    };
    const result = fromOpenAiEmbeddings(body, 2);
    expect(result.vectors.map((v) => Array.from(v))).toEqual([[1, 2], [0.5, -0.25]]);
    expect(result.promptTokens).toBeUndefined();
  });

  it.each([
    ['no data', {}],
    ['too few vectors', { data: [] }],
    ['a repeated index', { data: [{ index: 0, embedding: [1] }, { index: 0, embedding: [2] }] }],
    ['a vector of strings', { data: [{ index: 0, embedding: ['x'] }, { index: 1, embedding: [1] }] }],
    ['a ragged base64 vector', { data: [{ index: 0, embedding: 'AAA=' }, { index: 1, embedding: [1] }] }],
  ])('rejects %s as upstream_error', (_name, body) => {
    let caught: unknown;
    try {
      fromOpenAiEmbeddings(body, 2);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(GatewayError);
    expect((caught as GatewayError).code).toBe('upstream_error');
  });
});

describe('OpenAI embeddings response read from its text', () => {
  const text = (data: unknown[], usage: unknown = { prompt_tokens: 3, total_tokens: 3 }): string => JSON.stringify({ object: 'list', data, model: 'm', usage });

  it('keeps the float lists as the upstream wrote them, in index order, and parses them only when read', () => {
    const body = '{"data":[{"index":1,"embedding":[ 0.5 , -2.5e-05 ]},{"index":0,"embedding":[1,2]}],"usage":{"prompt_tokens":7}}';
    const result = fromOpenAiEmbeddingsText(body, 2);
    expect(result.raw).toEqual(['[1,2]', '[0.5 , -2.5e-05]']);
    expect(result.promptTokens).toBe(7);
    expect(result.vectors).toEqual([[1, 2], [0.5, -2.5e-5]]);
  });

  it('answers as the full parse does', () => {
    const body = text([{ object: 'embedding', index: 0, embedding: [...RECORDED_VALUES] }]);
    const fast = fromOpenAiEmbeddingsText(body, 1);
    const full = fromOpenAiEmbeddings(JSON.parse(body), 1, body);
    expect(fast.raw).toEqual(full.raw);
    expect(fast.vectors.map((v) => Array.from(v))).toEqual(full.vectors.map((v) => Array.from(v)));
    expect(fast.promptTokens).toBe(full.promptTokens);
  });

  it.each([
    ['a base64 vector', text([{ index: 0, embedding: base64Vector([0.5]) }, { index: 1, embedding: [1] }]), [[0.5], [1]]],
    ['a list key inside a string', text([{ index: 0, embedding: [1], note: '"embedding":[9]' }]), [[1]]],
    ['a number too large for a double', '{"data":[{"index":0,"embedding":[1e400]}]}', undefined],
    ['an empty list', text([{ index: 0, embedding: [] }]), [[]]],
  ])('reads a body with %s as the full parse does', (_name, body, vectors) => {
    const inputs = vectors?.length ?? 1;
    if (vectors === undefined) {
      expect(() => fromOpenAiEmbeddingsText(body, inputs)).toThrow(GatewayError);
      return;
    }
    const result = fromOpenAiEmbeddingsText(body, inputs);
    expect(result.vectors.map((v) => Array.from(v))).toEqual(vectors);
  });

  it.each([
    ['too few vectors', text([{ index: 0, embedding: [1] }]), 2],
    ['a repeated index', text([{ index: 0, embedding: [1] }, { index: 0, embedding: [2] }]), 2],
    ['invalid JSON around the lists', '{"data":[{"index":0,"embedding":[1]}', 1],
  ])('rejects %s as upstream_error', (_name, body, inputs) => {
    let caught: unknown;
    try {
      fromOpenAiEmbeddingsText(body, inputs);
    } catch (err) {
      caught = err;
    }
    expect((caught as GatewayError).code).toBe('upstream_error');
  });
});
