import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Link, type Span } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { TracingSettings } from '../config/index.js';
import type { SpanAttributes, SpanHandle, SpanRole, TracingBackend } from './tracing.js';

const KINDS: Record<SpanRole, SpanKind> = {
  internal: SpanKind.INTERNAL,
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  consumer: SpanKind.CONSUMER,
};

function clean(attributes: SpanAttributes): Record<string, string | number | boolean | string[]> {
  const out: Record<string, string | number | boolean | string[]> = {};
  for (const [k, v] of Object.entries(attributes)) if (v !== undefined) out[k] = v;
  return out;
}

function handle(span: Span): SpanHandle {
  return {
    set: (attributes) => void span.setAttributes(clean(attributes)),
    rename: (name) => void span.updateName(name),
    fail: (error) => {
      // The error's type only: messages may quote what a client sent.
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.setAttribute('error.type', error instanceof Error ? ((error as { code?: unknown }).code as string | undefined) ?? error.name : 'error');
    },
    end: () => span.end(),
  };
}

/** The span processor of production: batches over OTLP/HTTP to `<endpoint>/v1/traces`. */
function otlpProcessor(settings: TracingSettings): SpanProcessor {
  const exporter = new OTLPTraceExporter({ url: `${(settings.endpoint ?? '').replace(/\/+$/, '')}/v1/traces` });
  return new BatchSpanProcessor(exporter, { scheduledDelayMillis: settings.scheduleDelayMs });
}

/** The span context named by W3C headers, as a link; none when they name no valid span. */
function linkTo(carrier: Readonly<Record<string, string | string[] | undefined>>): Link[] {
  const origin = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, carrier));
  return origin !== undefined && trace.isSpanContextValid(origin) ? [{ context: origin }] : [];
}

/**
 * The SDK: a Node tracer provider and W3C propagation, exporting through `processor` (OTLP/HTTP
 * batches unless given one: tests pass an in-memory exporter's).
 */
export function createOtelBackend(settings: TracingSettings, process: string, processor: SpanProcessor = otlpProcessor(settings)): TracingBackend {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.serviceName, 'farebox.process': process }),
    spanProcessors: [processor],
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  // The provider's own tracer, not the global one: a second backend in one process (tests) keeps its own processor.
  const tracer = provider.getTracer('farebox');

  const run = async <T>(name: string, role: SpanRole, parent: Context, attributes: SpanAttributes, fn: (span: SpanHandle) => Promise<T>, endManually = false, links: Link[] = []): Promise<T> =>
    tracer.startActiveSpan(name, { kind: KINDS[role], attributes: clean(attributes), links }, parent, async (span) => {
      const h = handle(span);
      try {
        return await fn(h);
      } catch (err) {
        h.fail(err);
        throw err;
      } finally {
        if (!endManually) span.end();
      }
    });

  return {
    inSpan: (name, role, attributes, fn) => run(name, role, context.active(), attributes, fn),
    inRemoteSpan: (name, role, carrier, attributes, fn, endManually) => run(name, role, propagation.extract(context.active(), carrier), attributes, fn, endManually),
    inLinkedSpan: (name, role, carrier, attributes, fn) => run(name, role, ROOT_CONTEXT, attributes, fn, false, linkTo(carrier)),
    captureContent: settings.captureContent,
    carrier: () => {
      const out: Record<string, string> = {};
      propagation.inject(context.active(), out);
      return out;
    },
    shutdown: () => provider.shutdown(),
  };
}
