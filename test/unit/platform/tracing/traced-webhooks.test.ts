import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { Job } from 'bullmq';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOtelBackend } from '../../../../src/platform/tracing/otel-backend.js';
import { inSpan, installTracing, traceCarrier } from '../../../../src/platform/tracing/tracing.js';
import type { DeliveryLog, WebhookCollections, WebhookJobData } from '../../../../src/webhooks/index.js';
import { webhookProcessor } from '../../../../workers/processors/webhook-processor.js';

const memory = new InMemorySpanExporter();
const SETTINGS = { endpoint: 'http://127.0.0.1:1', serviceName: 'farebox', scheduleDelayMs: 100, captureContent: false };
const BODY_MARK = 'body-marker-never-in-a-span';

let receiver: Server;
let url: string;
let answer = 200;
const recorded: Array<{ ok: boolean; responseCode: number | null; final: boolean }> = [];

beforeAll(async () => {
  installTracing(createOtelBackend(SETTINGS, 'worker', new SimpleSpanProcessor(memory)));
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(answer).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  installTracing(undefined);
  await new Promise((resolve) => receiver.close(resolve));
});
beforeEach(() => {
  memory.reset();
  recorded.length = 0;
  answer = 200;
});

/** The processor with one endpoint, a delivery log that remembers, and a guard that lets the local receiver through. */
function processor() {
  const endpoint = { _id: 'wh_1', url, secret: `whsec_${Buffer.alloc(24, 7).toString('base64')}`, disabled: false };
  const c = { webhookEndpoints: { findOne: async () => endpoint } } as unknown as WebhookCollections;
  const deliveries = { record: async (_id: string, r: (typeof recorded)[number]) => void recorded.push(r) } as unknown as DeliveryLog;
  const guard = async (target: string) => ({ url: new URL(target), address: { address: '127.0.0.1', family: 4 as const } });
  return webhookProcessor({ c, deliveries, settings: { timeoutMs: 5_000 }, guard, log: pino({ level: 'silent' }) });
}

function job(trace?: Record<string, string>, attemptsMade = 0): Job<WebhookJobData> {
  const data: WebhookJobData = {
    delivery_id: 'whd_1', event_id: 'evt_1', endpoint_id: 'wh_1', account_id: 'acct_1', type: 'balance.low',
    body: JSON.stringify({ type: 'balance.low', data: { note: BODY_MARK } }), ...(trace ? { trace } : {}),
  };
  return { id: 'whd_1', data, attemptsMade, opts: { attempts: 3 } } as unknown as Job<WebhookJobData>;
}

/** A span that stands for the request whose spending queued the delivery, and its context. */
async function origin(): Promise<{ carrier: Record<string, string>; span: ReadableSpan }> {
  const carrier = await inSpan('ledger.commit', {}, async () => traceCarrier() ?? {});
  const span = memory.getFinishedSpans().find((s) => s.name === 'ledger.commit') as ReadableSpan;
  memory.reset();
  return { carrier, span };
}

function deliverySpan(): ReadableSpan {
  const spans = memory.getFinishedSpans().filter((s) => s.name === 'deliver webhooks');
  expect(spans).toHaveLength(1);
  return spans[0] as ReadableSpan;
}

describe('webhook delivery spans in the worker', () => {
  it('a delivery is a consumer span of its own trace, linked to the trace that queued it, without the body', async () => {
    const from = await origin();
    expect(from.carrier.traceparent).toMatch(/^00-/);
    await processor()(job(from.carrier));
    const span = deliverySpan();
    expect(span.kind).toBe(SpanKind.CONSUMER);
    expect(span.links.map((l) => [l.context.traceId, l.context.spanId])).toEqual([[from.span.spanContext().traceId, from.span.spanContext().spanId]]);
    // A root of its own trace: a retry a day later does not stretch the request's trace.
    expect(span.spanContext().traceId).not.toBe(from.span.spanContext().traceId);
    expect(span.parentSpanContext).toBeUndefined();
    expect(span.attributes).toMatchObject({
      'messaging.system': 'bullmq', 'messaging.destination.name': 'webhooks', 'farebox.webhook.delivery_id': 'whd_1',
      'farebox.webhook.event_type': 'balance.low', 'farebox.webhook.attempt': 1, 'http.response.status_code': 200, 'farebox.webhook.final': true,
    });
    expect(span.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(JSON.stringify(span.attributes)).not.toContain(BODY_MARK);
    expect(recorded).toEqual([{ ok: true, responseCode: 200, error: null, final: true }]);
  });

  it('a failed try is marked as an error with the answer it got, and the job still throws for the retry', async () => {
    answer = 503;
    const from = await origin();
    await expect(processor()(job(from.carrier, 1))).rejects.toThrow('receiver answered HTTP 503');
    const span = deliverySpan();
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes).toMatchObject({ 'http.response.status_code': 503, 'farebox.webhook.attempt': 2, 'farebox.webhook.final': false });
    expect(span.links).toHaveLength(1);
  });

  it('a job without trace context (queued while tracing was off) gets a span with no link', async () => {
    await processor()(job());
    expect(deliverySpan().links).toEqual([]);
    memory.reset();
    await processor()(job({ traceparent: 'not-a-traceparent' }));
    expect(deliverySpan().links).toEqual([]);
  });
});
