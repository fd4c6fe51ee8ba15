/** Attribute values a span takes. */
export type SpanAttributes = Record<string, string | number | boolean | string[] | undefined>;

/** What the request path sees of an open span: attributes can be added until it ends. */
export interface SpanHandle {
  set(attributes: SpanAttributes): void;
  rename(name: string): void;
  fail(error: unknown): void;
  end(): void;
}

/** Span kinds used here (OpenTelemetry's numbering). */
export type SpanRole = 'internal' | 'server' | 'client' | 'consumer';

/** The tracing backend, present only when an OTLP endpoint is configured. */
export interface TracingBackend {
  /** Runs `fn` in a child span of the active context. */
  inSpan<T>(name: string, role: SpanRole, attributes: SpanAttributes, fn: (span: SpanHandle) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` in a span whose parent comes from W3C headers (a client's `traceparent`, a job's
   * carrier). With `endManually` the span outlives `fn` until its handle's `end()` (a response
   * that streams on after the middleware returned).
   */
  inRemoteSpan<T>(
    name: string,
    role: SpanRole,
    carrier: Readonly<Record<string, string | string[] | undefined>>,
    attributes: SpanAttributes,
    fn: (span: SpanHandle) => Promise<T>,
    endManually?: boolean,
  ): Promise<T>;
  /** The active context as W3C headers (`traceparent`, `tracestate`). */
  carrier(): Record<string, string>;
  shutdown(): Promise<void>;
}

let backend: TracingBackend | undefined;

/** Installs the backend (the SDK side calls this once at boot). */
export function installTracing(installed: TracingBackend | undefined): void {
  backend = installed;
}

/** True when traces are exported. */
export function tracingOn(): boolean {
  return backend !== undefined;
}

/**
 * Runs `fn` in a child span; without tracing it is just `fn` (one comparison). The callback
 * gets a handle for attributes learnt on the way; errors are recorded and rethrown.
 */
export function inSpan<T>(name: string, attributes: SpanAttributes, fn: (span?: SpanHandle) => Promise<T>, role: SpanRole = 'internal'): Promise<T> {
  return backend === undefined ? fn() : backend.inSpan(name, role, attributes, fn);
}

/** Runs `fn` in a span whose parent is named by W3C headers; without tracing, just `fn`. */
export function inRemoteSpan<T>(
  name: string,
  carrier: Readonly<Record<string, string | string[] | undefined>> | undefined,
  attributes: SpanAttributes,
  fn: (span?: SpanHandle) => Promise<T>,
  role: SpanRole = 'server',
): Promise<T> {
  return backend === undefined ? fn() : backend.inRemoteSpan(name, role, carrier ?? {}, attributes, fn);
}

/** Like {@link inRemoteSpan}, but the span ends when the caller ends it, not when `fn` settles. */
export function inOpenRemoteSpan<T>(
  name: string,
  carrier: Readonly<Record<string, string | string[] | undefined>>,
  attributes: SpanAttributes,
  fn: (span?: SpanHandle) => Promise<T>,
): Promise<T> {
  return backend === undefined ? fn() : backend.inRemoteSpan(name, 'server', carrier, attributes, fn, true);
}

/** Headers with the active trace context added (`traceparent`); the same object when tracing is off. */
export function withTraceHeaders<H extends Readonly<Record<string, string>> | undefined>(headers: H): H | Record<string, string> {
  return backend === undefined ? headers : { ...headers, ...backend.carrier() };
}

/** The active trace context for a queued job's data; undefined when tracing is off. */
export function traceCarrier(): Record<string, string> | undefined {
  return backend?.carrier();
}

/** Flushes and stops the exporter (shutdown). */
export async function stopTracing(): Promise<void> {
  await backend?.shutdown();
  backend = undefined;
}
