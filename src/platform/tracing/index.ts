/**
 * OpenTelemetry tracing.
 * This file is the module's face: code outside the module imports from here only.
 */
export { inputContent, outputContent } from './span-content.js';
export { startTracing } from './start-tracing.js';
export {
  capturingContent,
  inLinkedSpan,
  inOpenRemoteSpan,
  inRemoteSpan,
  inSpan,
  type SpanAttributes,
  type SpanHandle,
  stopTracing,
  traceCarrier,
  tracingOn,
  withTraceHeaders,
} from './tracing.js';
