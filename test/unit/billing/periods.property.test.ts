import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dayPeriod, monthPeriod, weekPeriod, weekStart } from '../../../src/billing/periods.js';
import { daysSoFar } from '../../../src/billing/spend-windows.js';

// Instants from 1970 to 2100, with neighbours of UTC midnights weighted in.
const DAY = 86_400_000;
const instant = fc.oneof(
  fc.integer({ min: 0, max: 4_102_444_800_000 }),
  fc.tuple(fc.integer({ min: 0, max: 47_000 }), fc.integer({ min: -2, max: 2 })).map(([d, off]) => Math.max(0, d * DAY + off)),
);

describe('period ids', () => {
  it('name the UTC day, ISO week and month of any instant, whatever was asked before', () => {
    fc.assert(
      fc.property(fc.array(instant, { minLength: 1, maxLength: 20 }), (times) => {
        for (const t of times) {
          const at = new Date(t);
          const iso = at.toISOString();
          expect(dayPeriod(at)).toBe(`d:${iso.slice(0, 10)}`);
          expect(monthPeriod(at)).toBe(`m:${iso.slice(0, 7)}`);
          const monday = weekStart(at);
          expect(monday.getUTCDay()).toBe(1);
          expect(t - monday.getTime()).toBeGreaterThanOrEqual(0);
          expect(t - monday.getTime()).toBeLessThan(7 * DAY);
          expect(weekPeriod(at)).toBe(`w:${monday.toISOString().slice(0, 10)}`);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("list a window's days so far: consecutive, from its first day to the instant's", () => {
    fc.assert(
      fc.property(instant, (t) => {
        const at = new Date(t);
        const toDay = (p: string) => Date.parse(`${p.slice(2)}T00:00:00.000Z`);
        expect(daysSoFar('day', at)).toEqual([dayPeriod(at)]);
        const week = daysSoFar('week', at);
        const month = daysSoFar('month', at);
        expect(week[0]).toBe(`d:${weekPeriod(at).slice(2)}`);
        expect(month[0]).toBe(`d:${monthPeriod(at).slice(2)}-01`);
        for (const days of [week, month]) {
          expect(days.at(-1)).toBe(dayPeriod(at));
          days.forEach((d, i) => i > 0 && expect(toDay(d) - toDay(days[i - 1] as string)).toBe(DAY));
        }
        expect(week.length).toBeLessThanOrEqual(7);
        expect(month).toHaveLength(at.getUTCDate());
      }),
      { numRuns: 500 },
    );
  });
});
