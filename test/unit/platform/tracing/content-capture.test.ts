import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import Koa from 'koa';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { traceRequests } from '../../../../src/http/middleware/trace-requests.js';
import type { GatewayState } from '../../../../src/http/state.js';
import { createOtelBackend } from '../../../../src/platform/tracing/otel-backend.js';
import { MAX_CONTENT_CHARS } from '../../../../src/platform/tracing/span-content.js';
import { capturingContent, installTracing, type TracingBackend } from '../../../../src/platform/tracing/tracing.js';

const memory = new InMemorySpanExporter();
const settings = (captureContent: boolean) => ({ endpoint: 'http://127.0.0.1:1', serviceName: 'farebox', scheduleDelayMs: 100, captureContent });
const PROMPT = 'prompt-text-that-stays-home';
const SYSTEM = 'system-text-that-stays-home';
const ANSWER = 'answer-text-that-stays-home';

let off: TracingBackend;
let on: TracingBackend;
let server: Server;
let url: string;

beforeAll(async () => {
  off = createOtelBackend(settings(false), 'web', new SimpleSpanProcessor(memory));
  on = createOtelBackend(settings(true), 'web', new SimpleSpanProcessor(memory));
  const app = new Koa<GatewayState>();
  app.use(async (ctx, next) => {
    ctx.state.requestId = 'req_1';
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
    (ctx.request as { body?: unknown }).body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    await next();
  });
  app.use(traceRequests({ draft: () => undefined }));
  app.use(async (ctx) => {
    const body = ctx.request.body as { stream?: boolean; echo?: string };
    if (body.stream) {
      const stream = new PassThrough();
      ctx.type = 'text/event-stream';
      ctx.body = stream;
      stream.end(`data: ${JSON.stringify({ choices: [{ delta: { content: ANSWER } }] })}\n\n`);
      return;
    }
    ctx.body = { choices: [{ message: { role: 'assistant', content: body.echo ?? ANSWER }, finish_reason: 'stop' }] };
  });
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  installTracing(undefined);
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => memory.reset());

async function chat(path: string, body: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await res.text();
}

/** The attributes of the one server span, once it has ended (after the response went out). */
async function serverSpanText(): Promise<Record<string, unknown>> {
  for (let i = 0; i < 100 && memory.getFinishedSpans().length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  const spans = memory.getFinishedSpans();
  expect(spans).toHaveLength(1);
  return spans[0]?.attributes ?? {};
}

describe('prompt and completion content in spans', () => {
  it('never goes into a span while OTEL_CAPTURE_CONTENT is off (the default)', async () => {
    installTracing(off);
    expect(capturingContent()).toBe(false);
    await chat('/v1/messages', { model: 'm', system: SYSTEM, messages: [{ role: 'user', content: PROMPT }] });
    const attributes = await serverSpanText();
    expect(attributes['gen_ai.operation.name']).toBe('chat');
    const text = JSON.stringify(attributes);
    for (const secret of [PROMPT, SYSTEM, ANSWER]) expect(text).not.toContain(secret);
    expect(Object.keys(attributes).filter((k) => k.startsWith('gen_ai.input') || k.startsWith('gen_ai.output') || k === 'gen_ai.system_instructions')).toEqual([]);
  });

  it('goes into the server span as the GenAI attributes when the operator turns it on', async () => {
    installTracing(on);
    expect(capturingContent()).toBe(true);
    await chat('/v1/messages', { model: 'm', system: SYSTEM, messages: [{ role: 'user', content: PROMPT }] });
    const attributes = await serverSpanText();
    expect(JSON.parse(String(attributes['gen_ai.input.messages']))).toEqual([{ role: 'user', content: PROMPT }]);
    expect(attributes['gen_ai.system_instructions']).toBe(SYSTEM);
    expect(JSON.parse(String(attributes['gen_ai.output.messages']))).toEqual([{ role: 'assistant', content: ANSWER }]);
  });

  it('takes Responses input and image prompts, leaves streamed output out, and cuts long content', async () => {
    installTracing(on);
    await chat('/v1/responses', { model: 'm', input: PROMPT });
    expect((await serverSpanText())['gen_ai.input.messages']).toBe(PROMPT);
    memory.reset();
    await chat('/v1/images/generations', { model: 'm', prompt: PROMPT });
    expect((await serverSpanText())['gen_ai.input.messages']).toBe(PROMPT);
    memory.reset();
    await chat('/v1/chat/completions', { model: 'm', stream: true, messages: [{ role: 'user', content: PROMPT }] });
    const streamed = await serverSpanText();
    expect(streamed['gen_ai.input.messages']).toContain(PROMPT);
    expect(streamed['gen_ai.output.messages']).toBeUndefined();
    memory.reset();
    await chat('/v1/chat/completions', { model: 'm', echo: 'x'.repeat(MAX_CONTENT_CHARS * 2), messages: [] });
    const long = String((await serverSpanText())['gen_ai.output.messages']);
    expect(long.length).toBeLessThanOrEqual(MAX_CONTENT_CHARS + '…[truncated]'.length);
    expect(long.endsWith('…[truncated]')).toBe(true);
  });
});
