import { AIMessageChunk } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { HTTPClient, Mistral } from '@mistralai/mistralai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { textPdf } from '../../fixtures/documents/test-pdfs.js';
import { SpecRecorder, specProblems } from '../../helpers/spec-recorder.js';
import { startClientFarebox, UPSTREAM_REASONING, type ClientFarebox } from './client-setup.js';

/** LangChain JS, the Mistral SDK and the official `openai` client against real web and worker processes. */
let farebox: ClientFarebox;
const recorder = new SpecRecorder();

beforeAll(async () => {
  farebox = await startClientFarebox({ worker: true });
}, 180_000);
afterAll(async () => farebox?.close());

const chat = (model: string, extra: Partial<ConstructorParameters<typeof ChatOpenAI>[0]> = {}) =>
  new ChatOpenAI({ model, apiKey: farebox.apiKey, maxRetries: 0, configuration: { baseURL: farebox.baseURL, fetch: recorder.fetch }, ...extra });

/** `usage.cost` as LangChain passes the raw usage on in `response_metadata`. */
function costOf(message: { response_metadata: Record<string, unknown> }): unknown {
  const usage = message.response_metadata.usage;
  return typeof usage === 'object' && usage !== null && 'cost' in usage ? usage.cost : undefined;
}

describe('LangChain (@langchain/openai)', () => {
  it('invoke answers and carries usage.cost in response_metadata', async () => {
    const message = await chat('local/echo').invoke('hello langchain');
    expect(message.content).toBe('Echo: hello langchain');
    expect(costOf(message)).toBeGreaterThan(0);
    expect(message.usage_metadata?.total_tokens).toBeGreaterThan(0);
  });

  it('stream yields the answer in pieces, with usage at the end', async () => {
    let merged: AIMessageChunk | undefined;
    let pieces = 0;
    for await (const chunk of await chat('local/echo').stream('stream with langchain')) {
      merged = merged === undefined ? chunk : merged.concat(chunk);
      pieces += 1;
    }
    expect(pieces).toBeGreaterThan(2);
    expect(merged?.content).toBe('Echo: stream with langchain');
    expect(merged?.usage_metadata?.output_tokens).toBeGreaterThan(0);
    expect(merged === undefined ? undefined : costOf(merged)).toBeGreaterThan(0);
  });

  it('sees reasoning through reasoning_content, from a local model and relayed from an upstream', async () => {
    const local = await chat('local/echo', { modelKwargs: { reasoning_effort: 'low' } }).invoke('think it through');
    expect(local.additional_kwargs.reasoning_content).toContain('The user wrote');
    const relayed = await chat('fake/deepseek').invoke('think first');
    expect(relayed.additional_kwargs.reasoning_content).toBe(UPSTREAM_REASONING);
    let streamed = '';
    for await (const chunk of await chat('fake/deepseek').stream('think while streaming')) {
      const piece = chunk.additional_kwargs.reasoning_content;
      if (typeof piece === 'string') streamed += piece;
    }
    expect(streamed).toBe(UPSTREAM_REASONING);
  });

  it('bindTools gets tool calls with parsed arguments', async () => {
    const weather = tool(async ({ location }) => `21C in ${location}`, {
      name: 'get_weather', description: 'Weather by city', schema: z.object({ location: z.string() }),
    });
    const message = await chat('local/echo').bindTools([weather]).invoke('Use get_weather: weather in Paris?');
    expect(message.tool_calls?.map((c) => c.name)).toEqual(['get_weather']);
    expect(typeof message.tool_calls?.[0]?.args.location).toBe('string');
  });

  it('withStructuredOutput returns an object of the schema', async () => {
    const schema = z.object({ city: z.string(), population: z.number().int() });
    const result = await chat('local/echo').withStructuredOutput(schema, { name: 'city' }).invoke('a city please');
    expect(() => schema.parse(result)).not.toThrow();
  });
});

describe('the Mistral SDK', () => {
  it('ocr.process reads only the requested pages and bills only them', async () => {
    const costs: number[] = [];
    const httpClient = new HTTPClient();
    httpClient.addHook('response', async (res) => {
      // The SDK keeps only the fields it knows; usage.cost is read from the body here.
      const body = (await res.clone().json()) as { usage?: { cost?: number } };
      if (typeof body.usage?.cost === 'number') costs.push(body.usage.cost);
    });
    const mistral = new Mistral({ apiKey: farebox.apiKey, serverURL: farebox.baseURL.replace(/\/v1$/, ''), httpClient });
    const pdf = await textPdf([['First page text'], ['Second page text'], ['Third page text']]);
    const documentUrl = `data:application/pdf;base64,${pdf.toString('base64')}`;
    const before = await farebox.balance();
    const result = await mistral.ocr.process({ model: 'local/reader', document: { type: 'document_url', documentUrl }, pages: [1] });
    expect(result.pages.map((p) => p.index)).toEqual([1]);
    expect(result.pages[0]?.markdown).toContain('Second page text');
    expect(result.usageInfo.pagesProcessed).toBe(1);
    // local/reader costs 0.001 per page: one page processed, one page charged.
    expect(costs).toEqual([0.001]);
    await expect.poll(async () => Number((before - (await farebox.balance())).toFixed(9))).toBe(0.001);
  });

  it('passes the OCR options to a Mistral-kind provider', async () => {
    const mistral = new Mistral({ apiKey: farebox.apiKey, serverURL: farebox.baseURL.replace(/\/v1$/, '') });
    const pdf = await textPdf([['one'], ['two']]);
    const result = await mistral.ocr.process({
      model: 'mistral/mistral-ocr',
      document: { type: 'document_url', documentUrl: `data:application/pdf;base64,${pdf.toString('base64')}` },
      pages: [0], includeImageBase64: true, imageLimit: 3, imageMinSize: 50,
    });
    expect(result.usageInfo.pagesProcessed).toBe(1);
    expect(farebox.mistralOcr.requests.at(-1)?.json).toMatchObject({ pages: [0], include_image_base64: true, image_limit: 3, image_min_size: 50 });
  });
});

describe('the openai client', () => {
  it('models.retrieve works for a vendor/model id', async () => {
    const client = new OpenAI({ apiKey: farebox.apiKey, baseURL: farebox.baseURL, maxRetries: 0, fetch: recorder.fetch });
    const model = await client.models.retrieve('local/echo');
    expect(model).toMatchObject({ id: 'local/echo', object: 'model', owned_by: 'local' });
  });
});

describe('what these clients received', () => {
  it('conforms to the OpenAI spec', async () => {
    const documents = await recorder.settle();
    expect(documents.length).toBeGreaterThan(10);
    expect(specProblems(documents)).toEqual([]);
  });
});
