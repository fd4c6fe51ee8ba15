import { describe, expect, it } from 'vitest';
import { startTracing } from '../../../../src/platform/tracing/start-tracing.js';
import { inSpan, traceCarrier, tracingOn, withTraceHeaders } from '../../../../src/platform/tracing/tracing.js';

describe('tracing without an OTLP endpoint', () => {
  it('stays off: hooks pass straight through and add nothing to upstream headers or jobs', async () => {
    expect(await startTracing({ endpoint: undefined, serviceName: 'farebox', scheduleDelayMs: 5_000 }, 'web')).toBe(false);
    expect(tracingOn()).toBe(false);
    const headers = { authorization: 'Bearer x' };
    expect(withTraceHeaders(headers)).toBe(headers);
    expect(traceCarrier()).toBeUndefined();
    let handed: unknown = 'unset';
    await expect(inSpan('admission', {}, async (span) => {
      handed = span;
      return 42;
    })).resolves.toBe(42);
    expect(handed).toBeUndefined();
    await expect(inSpan('admission', {}, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  });
});
