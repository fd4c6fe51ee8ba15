import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/platform/errors/gateway-error.js';
import { decodeJobError, encodeJobError, FailedJobError, isJobErrorReason, isTransient } from '../../../src/queue/job-error.js';

describe('job failure encoding', () => {
  it('round-trips code, message, param and Retry-After through a BullMQ failure reason', () => {
    const original = new GatewayError('rate_limited', 'Upstream rate limit', { param: 'model', retryAfterSeconds: 7 });
    const decoded = decodeJobError(encodeJobError(original));
    expect([decoded.code, decoded.message, decoded.param, decoded.retryAfterSeconds, decoded.status]).toEqual([
      'rate_limited',
      'Upstream rate limit',
      'model',
      7,
      429,
    ]);
  });

  it('carries the routes the worker tried, and drops a malformed list', () => {
    const attempts = [{ model: 'v/img', provider: 'a', upstream_model: 'u', outcome: 'failed' as const, cause: 'status_500', status: 500, latency_ms: 12 }];
    const decoded = decodeJobError(encodeJobError(new GatewayError('upstream_error', 'boom'), attempts));
    expect(decoded).toBeInstanceOf(FailedJobError);
    expect([decoded.code, (decoded as FailedJobError).attempts]).toEqual(['upstream_error', attempts]);
    const bad = decodeJobError('farebox-job-error:{"code":"upstream_error","message":"x","attempts":[{"model":1}]}');
    expect(bad).not.toBeInstanceOf(FailedJobError);
    expect(bad.code).toBe('upstream_error');
  });

  it('turns reasons BullMQ wrote itself, or garbage, into a 502 without leaking them', () => {
    for (const reason of ['job stalled more than allowable limit', undefined, 'farebox-job-error:{not json', 'farebox-job-error:{"code":"nope","message":"x"}']) {
      const err = decodeJobError(reason);
      expect(err.code).toBe('upstream_error');
      expect(err.message).not.toContain('stalled');
    }
  });

  it('tells reasons our processors wrote from the ones BullMQ wrote itself', () => {
    expect(isJobErrorReason(encodeJobError(new GatewayError('upstream_error', 'boom')))).toBe(true);
    expect(isJobErrorReason('job stalled more than allowable limit')).toBe(false);
  });

  it('retries only provider and store trouble', () => {
    const transient = ['upstream_error', 'upstream_timeout', 'rate_limited', 'service_unavailable'] as const;
    const permanent = ['invalid_request', 'model_not_found', 'payload_too_large', 'internal_error'] as const;
    for (const code of transient) expect(isTransient(new GatewayError(code, 'x'))).toBe(true);
    for (const code of permanent) expect(isTransient(new GatewayError(code, 'x'))).toBe(false);
  });
});
