import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bearerToken } from '../../../src/http/middleware/authenticate.js';

/** The form the header is defined by, as it was parsed before the usual spelling had a shortcut. */
const DEFINITION = /^Bearer\s+(\S+)\s*$/i;

const pieces = fc.constantFrom('Bearer', 'bearer', 'BEARER', 'Basic', ' ', '  ', '\t', '\u00a0', '\u2028', '\u3000', '\n', 'sk-fbx-', 'A', 'é', '\u007f', '~', '!', '');

describe('the bearer token of an Authorization header', () => {
  it('is what the defining expression captures, for any header', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.array(pieces, { maxLength: 8 }).map((p) => p.join('')), fc.string().map((t) => `Bearer ${t}`)), (header) => {
        expect(bearerToken(header)).toBe(DEFINITION.exec(header)?.[1]);
      }),
      { numRuns: 5_000 },
    );
  });

  it('takes the usual spelling and refuses the edges of the form', () => {
    const key = `sk-fbx-${'a'.repeat(43)}`;
    expect(bearerToken(`Bearer ${key}`)).toBe(key);
    expect(bearerToken(`bearer  ${key}\t`)).toBe(key);
    expect(bearerToken('Bearer ')).toBeUndefined();
    expect(bearerToken(`Bearer ${key} x`)).toBeUndefined();
    expect(bearerToken(`Bearer ${key}\u00a0`)).toBe(key);
    expect(bearerToken(undefined)).toBeUndefined();
  });
});
