import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseRetryAfter, upstreamStatusError } from '../../../../src/providers/http/upstream-errors.js';

describe('parseRetryAfter', () => {
  it('reads delta seconds, rounding up', () => {
    expect(parseRetryAfter('7')).toBe(7);
    expect(parseRetryAfter('1.2')).toBe(2);
  });
  it('reads an HTTP date relative to now', () => {
    const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:30 GMT', now)).toBe(30);
  });
  it('defaults to 1 for missing, past or unparsable values', () => {
    expect(parseRetryAfter(undefined)).toBe(1);
    expect(parseRetryAfter('soon')).toBe(1);
    expect(parseRetryAfter('0')).toBe(1);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT')).toBe(1);
  });
});

describe('upstreamStatusError', () => {
  const openAiBody = (message: string) => JSON.stringify({ error: { message, type: 'x', param: null, code: null } });

  it('maps 429 to rate_limited with the upstream Retry-After', () => {
    const err = upstreamStatusError(429, { 'retry-after': '12' }, openAiBody('Slow down'));
    expect(err.code).toBe('rate_limited');
    expect(err.status).toBe(429);
    expect(err.retryAfterSeconds).toBe(12);
    expect(err.message).toContain('Slow down');
  });
  it('defaults Retry-After to 1 on 429 without the header', () => {
    expect(upstreamStatusError(429, {}, '').retryAfterSeconds).toBe(1);
  });
  it('maps 5xx, 404 to upstream_error and 408 to upstream_timeout', () => {
    expect(upstreamStatusError(500, {}, 'oops').code).toBe('upstream_error');
    expect(upstreamStatusError(529, {}, '').status).toBe(502);
    expect(upstreamStatusError(404, {}, '').code).toBe('upstream_error');
    expect(upstreamStatusError(408, {}, '').code).toBe('upstream_timeout');
  });
  it('keeps the upstream message for 400 and 422 as invalid_request', () => {
    const err = upstreamStatusError(400, {}, openAiBody("'messages' must not be empty"));
    expect(err.code).toBe('invalid_request');
    expect(err.message).toContain("'messages' must not be empty");
    const anthropic = JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'bad tool' } });
    expect(upstreamStatusError(422, {}, anthropic).message).toContain('bad tool');
    expect(upstreamStatusError(422, {}, JSON.stringify({ detail: 'no good' })).message).toContain('no good');
  });
  it('never passes on what an upstream says about refused credentials', () => {
    const err = upstreamStatusError(401, {}, openAiBody('Incorrect API key provided: sk-proj-abcdefghijklmnop'));
    expect(err.code).toBe('upstream_error');
    expect(err.status).toBe(502);
    expect(err.message).not.toContain('sk-');
    expect(upstreamStatusError(403, {}, '').code).toBe('upstream_error');
  });
  it('bounds long messages and masks key-like strings', () => {
    const err = upstreamStatusError(500, {}, openAiBody(`key sk-abcdefghijklmnopqrstuvwx ${'x'.repeat(5000)}`));
    expect(err.message.length).toBeLessThan(700);
    expect(err.message).not.toContain('sk-abcdefghijklmnopqrstuvwx');
  });
});

describe('quota and billing errors of the upstream account', () => {
  const recorded = (vendor: string, file: string): string => readFileSync(new URL(`../../../fixtures/recorded/${vendor}/${file}`, import.meta.url), 'utf8');

  it('maps OpenAI 429 insufficient_quota (recorded) to 502 upstream_error, not rate_limited', () => {
    const err = upstreamStatusError(429, { 'retry-after': '3' }, recorded('openai', 'error-429-insufficient-quota.json'));
    expect(err.code).toBe('upstream_error');
    expect(err.status).toBe(502);
    expect(err.retryAfterSeconds).toBeUndefined();
  });
  it('maps Anthropic billing errors (402 billing_error, 400 low credit balance) to upstream_error', () => {
    const billing = JSON.stringify({ type: 'error', error: { type: 'billing_error', message: 'There is an issue with your billing.' } });
    const lowCredit = JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'Your credit balance is too low to access the Anthropic API.' } });
    expect(upstreamStatusError(402, {}, billing).code).toBe('upstream_error');
    expect(upstreamStatusError(400, {}, lowCredit).code).toBe('upstream_error');
  });
  it('keeps a real rate limit (recorded Anthropic 429) as rate_limited', () => {
    expect(upstreamStatusError(429, {}, recorded('anthropic', 'error-429-rate-limit.json')).code).toBe('rate_limited');
  });
});
