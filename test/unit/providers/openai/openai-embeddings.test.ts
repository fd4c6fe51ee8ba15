import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/platform/errors/gateway-error.js';
import { fromOpenAiEmbeddings } from '../../../../src/providers/openai/openai-embeddings-response.js';
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
