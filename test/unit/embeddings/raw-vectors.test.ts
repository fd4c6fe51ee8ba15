import { describe, expect, it } from 'vitest';
import { embeddingsJson } from '../../../src/embeddings/embeddings-wire.js';
import { rawVectors } from '../../../src/providers/embeddings/raw-vectors.js';
import { fromOpenAiEmbeddings } from '../../../src/providers/openai/openai-embeddings-response.js';
import { RECORDED_VALUES } from '../../fixtures/upstreams/fake-openai-embeddings.js';

const pretty = (body: unknown): string => JSON.stringify(body, null, 2);

describe('raw vector texts', () => {
  it('keeps the upstream’s digits of a pretty-printed body (as recorded) and puts them in input order', async () => {
    const body = {
      object: 'list',
      data: [
        { object: 'embedding', index: 1, embedding: [1e-7, -0.5, 3] },
        { object: 'embedding', index: 0, embedding: [...RECORDED_VALUES] },
      ],
      model: 'text-embedding-3-small',
      usage: { prompt_tokens: 8, total_tokens: 8 },
    };
    const text = pretty(body);
    const result = fromOpenAiEmbeddings(JSON.parse(text), 2, text);
    expect(result.raw?.map((r) => JSON.parse(r) as number[])).toEqual([[...RECORDED_VALUES], [1e-7, -0.5, 3]]);
    const answer = JSON.parse(await embeddingsJson('m/x', result, 'float', { promptTokens: 8, cost: 0.5 }));
    expect(answer).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: [...RECORDED_VALUES] },
        { object: 'embedding', index: 1, embedding: [1e-7, -0.5, 3] },
      ],
      model: 'm/x',
      usage: { prompt_tokens: 8, total_tokens: 8, cost: 0.5 },
    });
  });

  it.each([
    ['another "embedding" list elsewhere', '{"data":[{"index":0,"embedding":[1,2]}],"meta":{"embedding":[3]}}'],
    ['a key that ends in embedding', '{"data":[{"index":0,"x\\"embedding":[9,9],"embedding":[1,2]}]}'],
  ])('gives up (serializing the parsed values instead) on %s', async (_name, text) => {
    const result = fromOpenAiEmbeddings(JSON.parse(text), 1, text);
    expect(result.raw).toBeUndefined();
    expect(JSON.parse(await embeddingsJson('m', result, 'float', { promptTokens: 1, cost: 0 })).data[0].embedding).toEqual([1, 2]);
  });

  it('refuses a list that does not match its parsed vector', () => {
    expect(rawVectors('{"embedding":[1,2,3]}', [[1, 2]])).toBeUndefined();
    expect(rawVectors('{"embedding":[1,2]}', [[1, 3]])).toBeUndefined();
    expect(rawVectors('{"embedding":[1,2]}', [[1, 2]])).toEqual(['[1,2]']);
  });

  it('encodes base64 from the values, whatever the raw text', async () => {
    const json = JSON.parse(await embeddingsJson('m', { vectors: [[0.5, -1]], raw: ['[0.5,-1]'] }, 'base64', { promptTokens: 1, cost: 0 }));
    const bytes = Buffer.from(json.data[0].embedding as string, 'base64');
    expect([bytes.readFloatLE(0), bytes.readFloatLE(4)]).toEqual([0.5, -1]);
  });
});
