import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../src/platform/errors/gateway-error.js';
import { fromOpenAiEmbeddings, fromOpenAiEmbeddingsBytes } from '../../../../src/providers/openai/openai-embeddings-response.js';
import { toOpenAiEmbeddingsRequest } from '../../../../src/providers/openai/openai-embeddings.js';
import { base64Vector, embeddingsJson } from '../../../../src/embeddings/embeddings-wire.js';
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

describe('OpenAI embeddings response read from its bytes', () => {
  const text = (data: unknown[], usage: unknown = { prompt_tokens: 3, total_tokens: 3 }): string => JSON.stringify({ object: 'list', data, model: 'm', usage });
  const read = (body: string, inputs: number) => fromOpenAiEmbeddingsBytes(Buffer.from(body), inputs);
  const rawText = (raw: readonly Buffer[] | undefined) => raw?.map((list) => list.toString('utf8'));

  it('keeps the float lists as the upstream wrote them, in index order, and parses them only when read', () => {
    const body = '{"data":[{"index":1,"embedding": [ 0.5 , -2.5e-05 ]},{"index":0,"embedding":[1,2]}],"usage":{"prompt_tokens":7}}';
    const result = read(body, 2);
    expect(rawText(result.raw)).toEqual(['[1,2]', '[ 0.5 , -2.5e-05 ]']);
    expect(result.promptTokens).toBe(7);
    expect(result.vectors).toEqual([[1, 2], [0.5, -2.5e-5]]);
  });

  it('answers as the full parse does', () => {
    const body = text([{ object: 'embedding', index: 0, embedding: [...RECORDED_VALUES] }]);
    const fast = read(body, 1);
    const full = fromOpenAiEmbeddings(JSON.parse(body), 1);
    expect(fast.raw).toHaveLength(1);
    expect(fast.vectors.map((v) => Array.from(v))).toEqual(full.vectors.map((v) => Array.from(v)));
    expect(fast.promptTokens).toBe(full.promptTokens);
  });

  it('relays a pretty-printed body’s digits in input order, around a model name that is not ASCII', async () => {
    const body = JSON.stringify({ object: 'list', data: [{ object: 'embedding', index: 1, embedding: [1e-7, -0.5, 3] }, { object: 'embedding', index: 0, embedding: [...RECORDED_VALUES] }], model: 'ünïcode-émbed', usage: { prompt_tokens: 8, total_tokens: 8 } }, null, 2);
    const result = read(body, 2);
    expect(rawText(result.raw)?.map((list) => JSON.parse(list) as number[])).toEqual([[...RECORDED_VALUES], [1e-7, -0.5, 3]]);
    const answer = JSON.parse((await embeddingsJson('m/ü', result, 'float', { promptTokens: 8, cost: 0.5 })).toString('utf8')) as unknown;
    expect(answer).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: [...RECORDED_VALUES] },
        { object: 'embedding', index: 1, embedding: [1e-7, -0.5, 3] },
      ],
      model: 'm/ü',
      usage: { prompt_tokens: 8, total_tokens: 8, cost: 0.5 },
    });
  });

  it('encodes base64 from the values, whatever the raw bytes', async () => {
    const answer = JSON.parse((await embeddingsJson('m', { vectors: [[0.5, -1]], raw: [Buffer.from('[0.5,-1]')] }, 'base64', { promptTokens: 1, cost: 0 })).toString('utf8'));
    const bytes = Buffer.from(answer.data[0].embedding as string, 'base64');
    expect([bytes.readFloatLE(0), bytes.readFloatLE(4)]).toEqual([0.5, -1]);
  });

  it.each([
    ['a base64 vector', text([{ index: 0, embedding: base64Vector([0.5]) }, { index: 1, embedding: [1] }]), [[0.5], [1]], false],
    ['a list key inside a string', text([{ index: 0, embedding: [1], note: '"embedding":[9]' }]), [[1]], true],
    ['another "embedding" list elsewhere', '{"data":[{"index":0,"embedding":[1,2]}],"meta":{"embedding":[3]}}', [[1, 2]], false],
    ['a key that ends in embedding', '{"data":[{"index":0,"x\\"embedding":[9,9],"embedding":[1,2]}]}', [[1, 2]], false],
    ['an empty list', text([{ index: 0, embedding: [] }]), [[]], false],
  ])('reads a body with %s as the full parse does', async (_name, body, vectors, relayed) => {
    const result = read(body, vectors.length);
    expect(result.vectors.map((v) => Array.from(v))).toEqual(vectors);
    expect(result.raw !== undefined).toBe(relayed);
    const answer = JSON.parse((await embeddingsJson('m', result, 'float', { promptTokens: 1, cost: 0 })).toString('utf8'));
    expect(answer.data.map((item: { embedding: number[] }) => item.embedding)).toEqual(vectors);
  });

  it.each([
    ['a list that is not JSON numbers', '{"data":[{"index":0,"embedding":[1,NaN]}]}'],
    ['a number too large for a double', '{"data":[{"index":0,"embedding":[1e400]}]}'],
  ])('rejects a body with %s', (_name, body) => {
    expect(() => read(body, 1)).toThrow(GatewayError);
  });

  it.each([
    ['too few vectors', text([{ index: 0, embedding: [1] }]), 2],
    ['a repeated index', text([{ index: 0, embedding: [1] }, { index: 0, embedding: [2] }]), 2],
    ['invalid JSON around the lists', '{"data":[{"index":0,"embedding":[1]}', 1],
  ])('rejects %s as upstream_error', (_name, body, inputs) => {
    let caught: unknown;
    try {
      read(body, inputs);
    } catch (err) {
      caught = err;
    }
    expect((caught as GatewayError).code).toBe('upstream_error');
  });
});
