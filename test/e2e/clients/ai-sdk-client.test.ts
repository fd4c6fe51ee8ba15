import { createOpenAICompatible, type OpenAICompatibleProvider } from '@ai-sdk/openai-compatible';
import { createOpenAI } from '@ai-sdk/openai';
import { generateImage, generateText, Output, stepCountIs, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SpecRecorder, specProblems } from '../../helpers/spec-recorder.js';
import { CHAT_PRICES, startClientFarebox, UPSTREAM_REASONING, type ClientFarebox } from './client-setup.js';

/**
 * The Vercel AI SDK (`ai` with `@ai-sdk/openai-compatible`, and `@ai-sdk/openai` in its
 * chat-completions mode) against real web and worker processes.
 */
let farebox: ClientFarebox;
let provider: OpenAICompatibleProvider;
const recorder = new SpecRecorder();

beforeAll(async () => {
  farebox = await startClientFarebox({ worker: true });
  provider = createOpenAICompatible({ name: 'farebox', baseURL: farebox.baseURL, apiKey: farebox.apiKey, includeUsage: true, supportsStructuredOutputs: true, fetch: recorder.fetch });
}, 180_000);
afterAll(async () => farebox?.close());

/** What a completion of `usage` costs at the registered prices. */
const priced = (input: number, output: number) => input * CHAT_PRICES.prompt + output * CHAT_PRICES.completion;

describe('Vercel AI SDK', () => {
  it('generateText answers and reports usage.cost in usage.raw', async () => {
    const result = await generateText({ model: provider('local/echo'), prompt: 'hello ai sdk', maxRetries: 0 });
    expect(result.text).toBe('Echo: hello ai sdk');
    const cost = result.usage.raw?.cost;
    expect(typeof cost).toBe('number');
    expect(cost).toBeCloseTo(priced(result.usage.inputTokens ?? 0, result.usage.outputTokens ?? 0), 12);
  });

  it('streamText streams text, reasoning (from reasoning_effort) and usage.cost', async () => {
    const result = streamText({ model: provider('local/echo'), prompt: 'stream for me', reasoning: 'low', maxRetries: 0 });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    expect(text).toBe('Echo: stream for me');
    expect(await result.reasoningText).toContain('The user wrote');
    const usage = await result.usage;
    expect(usage.raw?.cost).toBeGreaterThan(0);
  });

  it('relays an upstream reasoning_content as reasoning', async () => {
    const result = await generateText({ model: provider('fake/deepseek'), prompt: 'think first', maxRetries: 0 });
    expect(result.reasoningText).toBe(UPSTREAM_REASONING);
    expect(result.text).toBe('Hello from the fake upstream.');
  });

  it('calls tools and feeds their results back', async () => {
    const weather = tool({
      description: 'Weather by city',
      inputSchema: z.object({ location: z.string() }),
      execute: async ({ location }) => ({ location, temp_c: 21 }),
    });
    const result = await generateText({ model: provider('local/echo'), prompt: 'Use weather: weather in Paris?', tools: { weather }, stopWhen: stepCountIs(3), maxRetries: 0 });
    expect(result.steps[0]?.toolCalls.map((c) => c.toolName)).toEqual(['weather']);
    expect(result.text).toMatch(/^Tool result: .*temp_c/);
  });

  it('produces structured output with Output.object', async () => {
    const schema = z.object({ city: z.string(), population: z.number().int() });
    const result = await generateText({ model: provider('local/echo'), prompt: 'a city', output: Output.object({ schema }), maxRetries: 0 });
    expect(() => schema.parse(result.output)).not.toThrow();
    expect(typeof result.output.city).toBe('string');
  });

  it('works through @ai-sdk/openai in chat-completions mode', async () => {
    const openai = createOpenAI({ baseURL: farebox.baseURL, apiKey: farebox.apiKey, fetch: recorder.fetch });
    const result = await generateText({ model: openai.chat('local/echo'), prompt: 'via the openai provider', maxRetries: 0 });
    expect(result.text).toBe('Echo: via the openai provider');
  });

  it('generateImage returns a real PNG from a local image model', async () => {
    const result = await generateImage({ model: provider.imageModel('local/instant-image'), prompt: 'a blue circle', size: '256x256', maxRetries: 0 });
    expect(Buffer.from(result.image.uint8Array).subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  it('every answer the SDK received conforms to the OpenAI spec', async () => {
    const documents = await recorder.settle();
    expect(documents.length).toBeGreaterThan(10);
    expect(specProblems(documents)).toEqual([]);
  });
});
