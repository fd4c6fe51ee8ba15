import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextWeekStart, weekPeriod, weekStart } from '../../../src/billing/periods.js';
import { periodOf, resetOf } from '../../../src/billing/spend-windows.js';
import { keyCapsSchema, sharedLimitsSchema } from '../../../src/accounts/keys/limits-schema.js';
import { admitLimits } from '../../../src/admission/admit-limits.js';
import { endUserTag } from '../../../src/admission/end-user.js';
import { endUserOf } from '../../../src/ledger/records/end-user-source.js';
import { validate } from '../../../src/platform/validation/validate.js';
import type { KeyDoc } from '../../../src/accounts/keys/key-types.js';

const DAY = 86_400_000;

describe('ISO weeks', () => {
  it('start on Monday 00:00 UTC, across month and year boundaries', () => {
    expect(weekPeriod(new Date('2026-11-23T00:00:00.000Z'))).toBe('w:2026-11-23'); // a Monday
    expect(weekPeriod(new Date('2026-11-29T23:59:59.999Z'))).toBe('w:2026-11-23'); // its Sunday
    expect(weekPeriod(new Date('2026-11-30T00:00:00.000Z'))).toBe('w:2026-11-30');
    // ISO week 1 of 2027 starts Monday 2027-01-04; 2027-01-01 (a Friday) belongs to the week of 2026-12-28.
    expect(weekPeriod(new Date('2027-01-01T12:00:00.000Z'))).toBe('w:2026-12-28');
    expect(nextWeekStart(new Date('2026-12-31T23:00:00.000Z')).toISOString()).toBe('2027-01-04T00:00:00.000Z');
    // A week spanning two months is one window.
    expect(weekPeriod(new Date('2031-01-31T10:00:00.000Z'))).toBe(weekPeriod(new Date('2031-02-02T10:00:00.000Z')));
  });

  it('hold every instant: Monday start ≤ t < next Monday, seven days apart, and no drift over years', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) }), (ms) => {
        const at = new Date(ms);
        const start = weekStart(at);
        const next = nextWeekStart(at);
        expect(start.getUTCDay()).toBe(1);
        expect(start.getUTCHours() + start.getUTCMinutes() + start.getUTCSeconds() + start.getUTCMilliseconds()).toBe(0);
        expect(start.getTime()).toBeLessThanOrEqual(ms);
        expect(next.getTime()).toBeGreaterThan(ms);
        expect(next.getTime() - start.getTime()).toBe(7 * DAY);
        expect(weekPeriod(new Date(next.getTime() - 1))).toBe(weekPeriod(at));
        expect(weekPeriod(next)).not.toBe(weekPeriod(at));
      }),
    );
  });

  it('reset exactly the windows a rollover crosses', () => {
    const sunday = new Date('2026-11-29T23:59:59.000Z');
    const monday = new Date('2026-11-30T00:00:00.000Z');
    expect(periodOf('day', sunday)).not.toBe(periodOf('day', monday));
    expect(periodOf('week', sunday)).not.toBe(periodOf('week', monday));
    expect(periodOf('month', sunday)).toBe(periodOf('month', monday));
    expect(resetOf('week', sunday)?.toISOString()).toBe('2026-11-30T00:00:00.000Z');
    expect(resetOf('month', monday)?.toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(resetOf('lifetime', monday)).toBeUndefined();
  });
});

describe('nested caps', () => {
  it('refuse a narrower window above a wider one with a 400 that says why', () => {
    for (const caps of [{ day: 5, week: 4 }, { week: 30, month: 20 }, { day: 2, month: 1 }, { month: 9, lifetime: 8 }]) {
      let caught: unknown;
      try {
        validate(keyCapsSchema, caps);
      } catch (err) {
        caught = err;
      }
      expect(caught, JSON.stringify(caps)).toMatchObject({ code: 'invalid_request', status: 400, message: expect.stringMatching(/narrower window's cap may not exceed a wider one's/) });
    }
    expect(() => validate(sharedLimitsSchema, { spend_cap_usd: { day: 3, week: 2 } })).toThrow(/day cap is above the week cap/);
    expect(validate(keyCapsSchema, { day: 1, week: 5, month: 5, lifetime: 10 })).toEqual({ day: 1_000_000_000n, week: 5_000_000_000n, month: 5_000_000_000n, lifetime: 10_000_000_000n });
    expect(validate(keyCapsSchema, { day: 1, lifetime: 0.5 + 0.5 })).toBeDefined();
    // Malformed caps beside valid ones are 400s about the field, never a comparison that throws.
    for (const caps of [{ day: 'x', week: 1 }, { day: {}, month: 2 }, { week: 1, month: 'nope' }]) {
      expect(() => validate(keyCapsSchema, caps)).toThrow(/USD amount|expected|Invalid input/);
    }
  });
});

describe('limits of a request', () => {
  const key = {
    _id: 'key_a',
    account_id: 'acct_a',
    limits: { spend_cap: { day: 1n, week: 2n }, tpm: 100, end_user_limits: { spend_cap: { month: 3n }, tpm: 7 } },
  } as unknown as KeyDoc;

  it('puts every cap in its script slot and applies end-user limits only to a named end user', () => {
    const named = admitLimits(key, { spend_cap: { week: 9n }, tpm: 50 }, 'tag');
    expect(named.caps).toEqual([undefined, 1n, 2n, undefined, undefined, 9n, undefined, undefined, undefined, 3n]);
    expect(named.tpm).toEqual([50, 100, 7]);
    const anonymous = admitLimits(key, {}, undefined);
    expect(anonymous.caps.slice(7)).toEqual([undefined, undefined, undefined]);
    expect(anonymous.tpm).toEqual([undefined, 100, undefined]);
    expect(anonymous.endUser).toBe('');
  });

  it('reuses the limits of a key record under the same account limits, and builds them again for a new read of either', () => {
    const account = { spend_cap: { day: 5n } };
    const first = admitLimits(key, account, undefined);
    expect(admitLimits(key, account, undefined)).toBe(first);
    // Another read of the account's limits, even an equal one, is another object: built again, from it.
    const reread = admitLimits(key, { spend_cap: { day: 6n } }, undefined);
    expect(reread).not.toBe(first);
    expect(reread.caps[4]).toBe(6n);
    const rereadKey = { ...key, limits: { ...key.limits, spend_cap: { day: 4n } } } as KeyDoc;
    expect(admitLimits(rereadKey, account, undefined).caps[1]).toBe(4n);
    // A named end user's limits are the request's own.
    expect(admitLimits(key, account, 'tag')).not.toBe(admitLimits(key, account, 'tag'));
  });

  it('names the end user from the header, else the endpoint field', () => {
    expect(endUserOf('/v1/chat/completions', undefined, { user: 'u1' })).toEqual({ id: 'u1', param: 'user' });
    expect(endUserOf('/v1/messages', undefined, { metadata: { user_id: 'u2' } })).toEqual({ id: 'u2', param: 'metadata.user_id' });
    expect(endUserOf('/v1/messages', undefined, { user: 'ignored' })).toEqual({ param: 'metadata.user_id' });
    expect(endUserOf('/v1/embeddings', 'h1', { user: 'u3' })).toEqual({ id: 'h1', param: 'x-farebox-end-user' });
    expect(endUserOf('/v1/responses', undefined, { user: 42 })).toEqual({ param: 'user' });
  });

  it('tags end users with short keys free of separators, distinct per id', () => {
    const tags = new Set(['a', 'b', 'a:b|c', 'x'.repeat(256)].map(endUserTag));
    expect(tags.size).toBe(4);
    for (const t of tags) expect(t).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });
});
