import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AdmissionKeys } from '../../../src/admission/admission-keys.js';
import { chargeKeysSignature, SCRIPT_KEYS } from '../../../src/admission/script-keys.js';

const keys = new AdmissionKeys('fbx');
const DAY = 86_400_000;
/** Instants around day, ISO week (Monday) and month boundaries: 2031-03-30 is a Sunday. */
const base = Date.UTC(2031, 2, 30);
const instant = fc.constantFrom(-DAY - 1, -1, 0, 1, DAY - 1, DAY, DAY + 1, 2 * DAY, 3 * DAY, 8 * DAY).map((offset) => new Date(base + offset));
const scope = fc.record({
  accountId: fc.constantFrom('acct_a', 'acct_b'),
  keyId: fc.constantFrom('key_1', 'key_2'),
  requestId: fc.constantFrom('req_1', 'req_2'),
  at: instant,
  endUser: fc.constantFrom(undefined, 'u1', 'u2'),
  // A few cap sets, so that pairs share one often: none, the key's lifetime, the key's day,
  // all of them, the account's week with the end user's month.
  spendTracked: fc.constantFrom(...[[], [0], [1], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [5, 9]].map((on) => Array.from({ length: 10 }, (_, i) => on.includes(i)))),
});

describe('the signature slice charges are batched by', () => {
  it('is the same only for scopes whose APPLY_SLICE_CHARGES names the same keys but for the batch marker', () => {
    let same = 0;
    fc.assert(
      fc.property(scope, scope, (a, b) => {
        if (chargeKeysSignature(a) !== chargeKeysSignature(b)) return;
        same++;
        // The batch's id (passed as the request id) names only the marker, the last key.
        expect(SCRIPT_KEYS['apply-slice-charges'](keys, { ...b, requestId: a.requestId })).toEqual(SCRIPT_KEYS['apply-slice-charges'](keys, a));
      }),
      { numRuns: 5_000 },
    );
    // Enough pairs shared a signature for the property to have been tried.
    expect(same).toBeGreaterThan(0);
  });

  it('tells apart charges of another key or of another period of a tracked mirror, not of an untracked one', () => {
    const at = new Date(base);
    const tracked = [false, true, false, false, false, false, false, false, false, false];
    const one = { accountId: 'acct_a', keyId: 'key_1', at, spendTracked: tracked };
    expect(chargeKeysSignature({ ...one, keyId: 'key_2' })).not.toBe(chargeKeysSignature(one));
    expect(chargeKeysSignature({ ...one, at: new Date(base + DAY) })).not.toBe(chargeKeysSignature(one));
    // Only the lifetime mirror tracked: the day does not matter.
    const life = { ...one, spendTracked: [true, ...tracked.slice(1).map(() => false)] };
    expect(chargeKeysSignature({ ...life, at: new Date(base + DAY) })).toBe(chargeKeysSignature(life));
  });
});
