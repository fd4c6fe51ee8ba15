import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, FLAT_REDACT_PATHS, flatLineLogger, REDACT_PATHS } from '../../../../src/platform/log/logger.js';

function captured(): { lines: string[]; stream: Writable } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, stream };
}

describe('the flat-line logger', () => {
  it('keeps every top-level redaction path and no wildcard', () => {
    expect(FLAT_REDACT_PATHS).toEqual(expect.arrayContaining(['authorization', 'key', 'raw_key', 'apiKey', 'token', 'adminToken', 'signingKey', 'privateKey', 'secrets']));
    expect(FLAT_REDACT_PATHS.some((p) => p.includes('*'))).toBe(false);
    expect(FLAT_REDACT_PATHS.length).toBeLessThan(REDACT_PATHS.length);
  });

  it('redacts top-level secrets and writes the access fields as they are', () => {
    const out = captured();
    const log = flatLineLogger(createLogger('info', out.stream));
    log.info({ request_id: 'req_1', method: 'POST', path: '/v1/chat/completions', status: 200, key_id: 'key_1', ms: 1.5, token: 'secret-value' });
    const line = JSON.parse(out.lines[0] ?? '{}') as Record<string, unknown>;
    expect(line).toMatchObject({ request_id: 'req_1', method: 'POST', status: 200, key_id: 'key_1', ms: 1.5, token: '[redacted]' });
    expect(out.lines.join('')).not.toContain('secret-value');
  });
});
