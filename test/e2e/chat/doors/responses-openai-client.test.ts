import { createOpenAI } from '@ai-sdk/openai';
import { generateText, streamText } from 'ai';
import OpenAI, { APIError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAiSchema, schemaErrors } from '../../../helpers/openai-spec.js';
import { SpecRecorder } from '../../../helpers/spec-recorder.js';
import { chargedFor, nanoOf, startFrontGateway, type FrontGateway } from './front-gateway.js';

/** Usage as Farebox sends it: the SDK's type plus `cost`. */
type CostedUsage = OpenAI.Responses.ResponseUsage & { cost: number };

const WEATHER: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'get_weather',
  description: 'Weather by city',
  parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'], additionalProperties: false },
  strict: true,
};

let gw: FrontGateway;
let client: OpenAI;
/** Everything the openai client received here, checked against OpenAI's spec at the end. */
const recorder = new SpecRecorder();

beforeAll(async () => {
  gw = await startFrontGateway();
  client = new OpenAI({ apiKey: gw.funded.raw, baseURL: `${gw.web.url}/v1`, maxRetries: 0, fetch: recorder.fetch });
}, 180_000);
afterAll(async () => gw?.close());

describe('the openai SDK on POST /v1/responses', () => {
  it('answers a string input; usage.cost equals the ledger charge', async () => {
    const { data, response } = await client.responses.create({ model: 'local/echo', input: 'hello responses', instructions: 'be brief' }).withResponse();
    expect(data.object).toBe('response');
    expect(data.status).toBe('completed');
    expect(data.model).toBe('local/echo');
    expect(data.output_text).toBe('Echo: hello responses');
    const usage = data.usage as CostedUsage;
    expect(usage.total_tokens).toBe(usage.input_tokens + usage.output_tokens);
    expect(usage.cost).toBeGreaterThan(0);
    const requestId = response.headers.get('x-service-request-id') ?? '';
    expect(await chargedFor(gw, requestId)).toBe(nanoOf(usage.cost));
  });

  it('streams the typed events in order and ends with usage.cost equal to the ledger', async () => {
    const { data: stream, response } = await client.responses.create({ model: 'local/echo', input: 'stream me [[local:chunks=4]]', stream: true }).withResponse();
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const types = events.map((e) => e.type);
    expect(types.slice(0, 4)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
    expect(types.filter((t) => t === 'response.output_text.delta').length).toBe(4);
    expect(types.slice(-4)).toEqual(['response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed']);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const deltas = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : [])).join('');
    expect(deltas).toBe('Echo: stream me');
    const done = events.at(-1);
    if (done?.type !== 'response.completed') throw new Error('expected response.completed last');
    const cost = (done.response.usage as CostedUsage).cost;
    expect(cost).toBeGreaterThan(0);
    expect(await chargedFor(gw, response.headers.get('x-service-request-id') ?? '')).toBe(nanoOf(cost));
  });

  it('runs a function tool round trip (streamed call, then the output)', async () => {
    const stream = client.responses.stream({ model: 'local/echo', input: 'Use get_weather: weather in Paris?', tools: [WEATHER] });
    const argDeltas: string[] = [];
    stream.on('response.function_call_arguments.delta', (e) => argDeltas.push(e.delta));
    const first = await stream.finalResponse();
    const call = first.output.find((item) => item.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error('expected a function call');
    expect(call.name).toBe('get_weather');
    expect(argDeltas.join('')).toBe(call.arguments);
    expect(JSON.parse(call.arguments)).toHaveProperty('location');
    const second = await client.responses.create({
      model: 'local/echo',
      input: [{ role: 'user', content: 'Use get_weather: weather in Paris?' }, call, { type: 'function_call_output', call_id: call.call_id, output: '{"temp_c": 21}' }],
      tools: [WEATHER],
    });
    expect(second.output_text).toBe('Tool result: {"temp_c": 21}');
  });

  it('follows a json_schema text format, with reasoning as a summary item', async () => {
    const res = await client.responses.create({
      model: 'local/echo',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'a city' }] }],
      reasoning: { effort: 'low', summary: 'auto' },
      max_output_tokens: 500,
      text: { format: { type: 'json_schema', name: 'city', strict: true, schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false } } },
    });
    expect(typeof (JSON.parse(res.output_text) as { name: unknown }).name).toBe('string');
    expect(res.output[0]?.type).toBe('reasoning');
    expect((res.usage as CostedUsage).output_tokens_details.reasoning_tokens).toBeGreaterThanOrEqual(0);
  });

  it('reports a failure after the stream started as response.failed, with usage.cost equal to the ledger', async () => {
    const { data: stream, response } = await client.responses.create({ model: 'local/echo', input: 'break [[local:chunks=5]] [[local:fail-after=2]]', stream: true }).withResponse();
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const last = events.at(-1);
    if (last?.type !== 'response.failed') throw new Error(`expected response.failed last, got ${last?.type}`);
    expect(last.response.status).toBe('failed');
    expect(last.response.error?.code).toBe('server_error');
    expect(last.response.error?.message).toContain('upstream_error');
    expect(events.filter((e) => e.type === 'response.output_text.delta')).toHaveLength(2);
    const cost = (last.response.usage as CostedUsage).cost;
    expect(await chargedFor(gw, response.headers.get('x-service-request-id') ?? '')).toBe(nanoOf(cost));
  });

  it.each([
    ['previous_response_id', { previous_response_id: 'resp_123' }, 'previous_response_id'],
    ['store: true', { store: true }, 'store'],
    ['an item reference', { input: [{ type: 'item_reference', id: 'msg_1' }] }, 'input.0'],
  ] as const)('refuses %s with a 400 saying it is stateless', async (_name, extra, param) => {
    const body = { model: 'local/echo', input: 'x', ...extra } as OpenAI.Responses.ResponseCreateParamsNonStreaming;
    const error = await client.responses.create(body).then(() => undefined, (err: unknown) => err);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(400);
    expect((error as APIError).code).toBe('invalid_request');
    expect((error as APIError).param).toBe(param);
    expect((error as APIError).message).toContain('stateless');
  });

  it('answers 402 to a key without balance', async () => {
    const broke = new OpenAI({ apiKey: gw.broke.raw, baseURL: `${gw.web.url}/v1`, maxRetries: 0 });
    const error = await broke.responses.create({ model: 'local/echo', input: 'x' }).then(() => undefined, (err: unknown) => err);
    expect((error as APIError).status).toBe(402);
    expect((error as APIError).code).toBe('insufficient_credits');
  });
});

/** The spec's schema of one stream event, by its `type` (`response.output_text.delta` → ResponseTextDeltaEvent). */
function eventSchema(json: unknown): string {
  const type = (json as { type: string }).type.replace(/^response\./, '').replace(/^output_text\./, 'text.');
  const pascal = type.split(/[._]/).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
  return `Response${pascal}Event`;
}

describe('conformance', () => {
  it("every response object and stream event the client received matches OpenAI's spec", async () => {
    const documents = (await recorder.settle()).filter((d) => d.path === '/v1/responses' && d.status === 200);
    const problems: string[] = [];
    for (const doc of documents) {
      const name = doc.part === 'body' ? 'Response' : eventSchema(doc.json);
      const validate = openAiSchema(name);
      if (!validate(doc.json)) problems.push(`${name}: ${JSON.stringify(doc.json).slice(0, 200)} ${schemaErrors(validate)}`);
    }
    expect(documents.filter((d) => d.part === 'body').length).toBeGreaterThanOrEqual(3);
    expect(documents.filter((d) => d.part === 'chunk').length).toBeGreaterThan(20);
    expect(problems).toEqual([]);
  });
});

describe("the AI SDK's default openai(modelId) (Responses)", () => {
  const provider = () => createOpenAI({ apiKey: gw.funded.raw, baseURL: `${gw.web.url}/v1` });

  it('generateText', async () => {
    const result = await generateText({ model: provider()('local/echo'), prompt: 'hi ai sdk' });
    expect(result.text).toBe('Echo: hi ai sdk');
    expect(result.usage.outputTokens).toBeGreaterThan(0);
  });

  it('streamText', async () => {
    const result = streamText({ model: provider()('local/echo'), prompt: 'stream ai sdk' });
    let text = '';
    for await (const piece of result.textStream) text += piece;
    expect(text).toBe('Echo: stream ai sdk');
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
  });
});
