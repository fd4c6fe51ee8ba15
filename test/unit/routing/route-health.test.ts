import { describe, expect, it } from 'vitest';
import { judgeFailure, RouteHealth } from '../../../src/routing/index.js';
import { GatewayError } from '../../../src/platform/errors/gateway-error.js';
import { upstreamStatusError } from '../../../src/providers/http/upstream-errors.js';

describe('RouteHealth', () => {
  it('opens after N failures in a row, lets one trial through after the cool-down, closes on success', () => {
    let now = 1_000;
    const health = new RouteHealth({ breakerFailures: 3, breakerCooldownMs: 100 }, () => now);
    for (let i = 0; i < 2; i += 1) health.failed('r');
    expect(health.gate('r')).toBe('closed');
    health.failed('r');
    expect(health.gate('r')).toBe('open');
    expect(health.view('r').state).toBe('open');
    now += 100;
    expect(health.gate('r')).toBe('trial');
    expect(health.gate('r')).toBe('open');
    health.succeeded('r', 20);
    expect(health.gate('r')).toBe('closed');
    expect(health.latency('r')).toBe(20);
  });

  it('a failed trial opens the breaker for another cool-down', () => {
    let now = 0;
    const health = new RouteHealth({ breakerFailures: 1, breakerCooldownMs: 50 }, () => now);
    health.failed('r');
    now = 60;
    expect(health.gate('r')).toBe('trial');
    health.failed('r');
    expect(health.gate('r')).toBe('open');
    now = 111;
    expect(health.gate('r')).toBe('trial');
  });

  it('keeps a route aside until its Retry-After has passed', () => {
    let now = 0;
    const health = new RouteHealth({ breakerFailures: 5, breakerCooldownMs: 50 }, () => now);
    health.failed('r', 2_000);
    expect(health.gate('r')).toBe('retry_after');
    expect(health.retryAt('r')).toBe(2_000);
    now = 2_000;
    expect(health.gate('r')).toBe('closed');
  });
});

describe('judgeFailure', () => {
  it.each([
    [408, true], [409, true], [429, true], [500, true], [501, true], [502, true], [503, true], [504, true], [529, true],
    [401, true], [403, true], [400, false], [413, false], [422, false], [418, false],
  ])('status %i fails over: %s', (status, failover) => {
    const verdict = judgeFailure(upstreamStatusError(status, { 'retry-after': '3' }, '{"error":{"message":"x"}}'));
    expect(verdict).toMatchObject({ failover, status, cause: `status_${status}` });
    if (status === 429) expect(verdict.retryAfterMs).toBe(3_000);
  });

  it('insufficient_quota and transport faults fail over; errors that are not the upstream never do', () => {
    expect(judgeFailure(upstreamStatusError(429, {}, '{"error":{"code":"insufficient_quota","message":"quota"}}')).cause).toBe('insufficient_quota');
    for (const transport of ['connect', 'reset', 'timeout'] as const) {
      expect(judgeFailure(new GatewayError('upstream_error', 'x', { upstream: { transport } }))).toMatchObject({ failover: true, cause: transport });
    }
    expect(judgeFailure(new GatewayError('upstream_error', 'The upstream request was aborted')).failover).toBe(false);
    expect(judgeFailure(new GatewayError('internal_error', 'bug')).failover).toBe(false);
  });

  it('a 400 that says the request exceeds the context fails over, without a mark against the route', () => {
    const openai = upstreamStatusError(400, {}, JSON.stringify({ error: { message: "This model's maximum context length is 8192 tokens", type: 'invalid_request_error', code: 'context_length_exceeded' } }));
    const anthropic = upstreamStatusError(400, {}, JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' } }));
    for (const err of [openai, anthropic]) expect(judgeFailure(err)).toMatchObject({ failover: true, cause: 'context_length_exceeded', status: 400, routeFault: false });
    expect(judgeFailure(upstreamStatusError(400, {}, '{"error":{"message":"Invalid messages"}}')).failover).toBe(false);
  });
});
