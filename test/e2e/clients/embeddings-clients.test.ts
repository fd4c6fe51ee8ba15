import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createOpenAI } from '@ai-sdk/openai';
import { OpenAIEmbeddings } from '@langchain/openai';
import { cosineSimilarity, embed, embedMany } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpecRecorder, specProblems } from '../../helpers/spec-recorder.js';
import { startClientFarebox, type ClientFarebox } from './client-setup.js';

/**
 * `POST /v1/embeddings` through the official `openai` client, the AI SDK (`embed`,
 * `embedMany`) and LangChain's OpenAIEmbeddings, against a real web process and the local
 * embedding model.
 */
const MODEL = 'local/hashed-ngrams';
/** The model's price in the seed catalog, USD per input token. */
const PRICE = 0.00000001;

let farebox: ClientFarebox;
const recorder = new SpecRecorder();

beforeAll(async () => {
  farebox = await startClientFarebox({ worker: false });
}, 180_000);
afterAll(async () => farebox?.close());

/** `usage.cost` of the embeddings answers the recorder saw, in order. */
async function recordedCosts(): Promise<number[]> {
  const documents = await recorder.settle();
  return documents
    .filter((d) => d.path === '/v1/embeddings' && d.status === 200)
    .map((d) => (d.json as { usage: { cost: number } }).usage.cost);
}

describe('openai embeddings.create', () => {
  const client = () => new OpenAI({ baseURL: farebox.baseURL, apiKey: farebox.apiKey, maxRetries: 0, fetch: recorder.fetch });

  it('embeds (base64 by default, decoded by the SDK) and reads usage.cost', async () => {
    const before = await farebox.balance();
    const res = await client().embeddings.create({ model: MODEL, input: ['first document', 'second document'] });
    expect(res.data.map((d) => d.embedding.length)).toEqual([384, 384]);
    expect(Math.hypot(...(res.data[0]?.embedding ?? []))).toBeCloseTo(1, 5);
    const cost = (res.usage as { cost?: number }).cost;
    expect(cost).toBeCloseTo(res.usage.prompt_tokens * PRICE, 12);
    expect(before - (await farebox.balance())).toBeCloseTo(cost ?? 0, 9);
  });

  it('embeds floats with dimensions', async () => {
    const res = await client().embeddings.create({ model: MODEL, input: 'a shorter vector', dimensions: 128, encoding_format: 'float' });
    expect(res.data[0]?.embedding).toHaveLength(128);
  });
});

describe('AI SDK embed / embedMany', () => {
  it('embed (openai-compatible) returns a vector and the raw body carries usage.cost', async () => {
    const provider = createOpenAICompatible({ name: 'farebox', baseURL: farebox.baseURL, apiKey: farebox.apiKey, fetch: recorder.fetch });
    const result = await embed({ model: provider.embeddingModel(MODEL), value: 'sunny day at the beach', maxRetries: 0 });
    expect(result.embedding).toHaveLength(384);
    expect(result.usage.tokens).toBeGreaterThan(0);
    const body = result.response?.body as { usage?: { cost?: number } } | undefined;
    expect(body?.usage?.cost).toBeCloseTo(result.usage.tokens * PRICE, 12);
  });

  it('embedMany (@ai-sdk/openai) ranks a paraphrase above unrelated text', async () => {
    const openai = createOpenAI({ baseURL: farebox.baseURL, apiKey: farebox.apiKey, fetch: recorder.fetch });
    const values = ['How do I reset my password?', 'What are the steps to reset a forgotten password?', 'The recipe needs two cups of flour.'];
    const { embeddings, usage } = await embedMany({ model: openai.embedding(MODEL), values, maxRetries: 0 });
    expect(embeddings).toHaveLength(3);
    const [query, paraphrase, unrelated] = embeddings as [number[], number[], number[]];
    expect(cosineSimilarity(query, paraphrase)).toBeGreaterThan(cosineSimilarity(query, unrelated));
    expect(usage.tokens).toBeGreaterThan(0);
  });
});

describe('LangChain OpenAIEmbeddings', () => {
  it('embedQuery and embedDocuments work; the cost is in the answers it received', async () => {
    const embeddings = new OpenAIEmbeddings({ model: MODEL, apiKey: farebox.apiKey, maxRetries: 0, configuration: { baseURL: farebox.baseURL, fetch: recorder.fetch } });
    const query = await embeddings.embedQuery('bank transfer payment');
    expect(query).toHaveLength(384);
    const docs = await embeddings.embedDocuments(['The invoice was paid by bank transfer.', 'The orchestra tuned their instruments.']);
    expect(docs).toHaveLength(2);
    // LangChain returns vectors only; what it was billed is in the bodies it read.
    const costs = await recordedCosts();
    expect(costs.length).toBeGreaterThanOrEqual(2);
    expect(costs.every((c) => c > 0)).toBe(true);
  });

  it('every embeddings answer the clients received conforms to the OpenAI spec', async () => {
    const documents = await recorder.settle();
    expect(documents.filter((d) => d.path === '/v1/embeddings').length).toBeGreaterThanOrEqual(6);
    expect(specProblems(documents)).toEqual([]);
  });
});
