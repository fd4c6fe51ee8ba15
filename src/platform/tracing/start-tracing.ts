import type { TracingSettings } from '../config/index.js';
import { installTracing } from './tracing.js';

/**
 * Starts exporting traces when `OTEL_EXPORTER_OTLP_ENDPOINT` is set. The OpenTelemetry SDK is
 * imported only then: a gateway without an endpoint never loads it, and each hook on the
 * request path costs one comparison.
 */
export async function startTracing(settings: TracingSettings, process: string): Promise<boolean> {
  if (settings.endpoint === undefined) return false;
  const { createOtelBackend } = await import('./otel-backend.js');
  installTracing(createOtelBackend(settings, process));
  return true;
}
