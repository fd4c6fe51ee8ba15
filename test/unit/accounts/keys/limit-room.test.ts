import { describe, expect, it } from 'vitest';
import { capRooms, roomOf, type KeyLimitFigures } from '../../../../src/accounts/keys/limit-room.js';
import { capRoom, scopeUsage, type ScopeFigures } from '../../../../src/accounts/keys/limit-usage.js';
import { capCheckName, checkRooms } from '../../../../src/quote/quote-checks.js';

const usd = (n: number) => BigInt(Math.round(n * 1e9));
const NOW = new Date('2031-05-14T09:00:00.000Z');

const key: ScopeFigures = { scope: 'key', caps: { day: usd(1), lifetime: usd(10) }, spend: { day: usd(0.25), lifetime: usd(9.5) }, heldUsd: usd(0.05) };
const account: ScopeFigures = { scope: 'account', caps: { week: usd(0.5) }, spend: { week: usd(0.6) }, heldUsd: 0n };
const endUser: ScopeFigures = { scope: 'end_user', caps: { day: usd(0.1) }, spend: {}, heldUsd: usd(0.02) };
const figures: KeyLimitFigures = { keySpend: { day: usd(0.25), week: 0n, month: 0n, lifetime: usd(9.5) }, scopes: [key, account, endUser] };

describe('the room under every cap', () => {
  it('is the cap less spend and holds in flight, per scope and window, and only for caps that are set', () => {
    expect(capRooms(figures)).toEqual([
      { scope: 'key', window: 'lifetime', room: usd(0.45) },
      { scope: 'key', window: 'day', room: usd(0.7) },
      { scope: 'account', window: 'week', room: usd(-0.1) },
      { scope: 'end_user', window: 'day', room: usd(0.08) },
    ]);
    expect(roomOf(capRooms(figures), 'key', 'week')).toBeUndefined();
    expect(capRoom(key, 'month')).toBeUndefined();
  });

  it('gives GET /v1/key the same figures, clamped at 0 for an overshoot', () => {
    const rows = figures.scopes.flatMap((f) => scopeUsage(f, NOW));
    const remaining = (scope: string, limit: string) => rows.find((r) => r.scope === scope && r.limit === limit)?.remaining;
    expect(remaining('key', 'spend_cap_usd.day')).toBe(0.7);
    expect(remaining('account', 'spend_cap_usd.week')).toBe(0);
    expect(remaining('end_user', 'spend_cap_usd.day')).toBe(0.08);
  });

  it('gives the quote one check per cap, and names the tightest (an overshot cap leaves no room)', () => {
    const rooms = Object.fromEntries(capRooms(figures).map((r) => [capCheckName(r.scope, r.window), r.room]));
    expect(Object.keys(rooms)).toEqual(['spend_cap_lifetime', 'spend_cap_day', 'account_spend_cap_week', 'end_user_spend_cap_day']);
    const result = checkRooms(usd(0.01), { balance: usd(5), ...rooms });
    expect(result).toMatchObject({ fits: false, tightest: 0n, tightestLimit: 'account_spend_cap_week' });
    expect(result.checks.account_spend_cap_week).toEqual({ room_usd: '0', fits: false });
    expect(result.checks.end_user_spend_cap_day).toEqual({ room_usd: '0.08', fits: true });
    const withoutAccount = checkRooms(usd(0.01), { balance: usd(5), ...rooms, account_spend_cap_week: undefined });
    expect(withoutAccount).toMatchObject({ fits: true, tightestLimit: 'end_user_spend_cap_day', tightest: usd(0.08) });
  });
});
