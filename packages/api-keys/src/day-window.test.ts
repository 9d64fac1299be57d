import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dayWindow, localDate, secondsUntil } from './day-window.ts';

const at = (iso: string) => Date.parse(iso);

describe('quota day window', () => {
  it('resets at 00:00 UTC by default zone UTC', () => {
    const w = dayWindow(at('2026-03-14T23:59:59.000Z'), 'UTC');
    expect(w).toEqual({ day: '2026-03-14', startsAt: at('2026-03-14T00:00:00Z'), resetsAt: at('2026-03-15T00:00:00Z') });
    expect(secondsUntil(w.resetsAt, at('2026-03-14T23:59:59.000Z'))).toBe(1);
    expect(secondsUntil(w.resetsAt, at('2026-03-14T23:59:59.999Z'))).toBe(1);
    expect(secondsUntil(w.resetsAt, at('2026-03-14T00:00:00Z'))).toBe(86_400);
    expect(dayWindow(at('2026-03-15T00:00:00Z'), 'UTC').day).toBe('2026-03-15');
  });

  it('follows local midnight in another zone, including DST days of 23 and 25 hours', () => {
    const sydney = dayWindow(at('2026-06-01T13:59:59Z'), 'Australia/Sydney'); // 23:59:59 AEST (+10)
    expect(sydney.day).toBe('2026-06-01');
    expect(sydney.resetsAt).toBe(at('2026-06-01T14:00:00Z'));
    // New York: 2026-03-08 springs forward (23 h), 2026-11-01 falls back (25 h).
    const spring = dayWindow(at('2026-03-08T12:00:00Z'), 'America/New_York');
    expect((spring.resetsAt - spring.startsAt) / 3_600_000).toBe(23);
    const fall = dayWindow(at('2026-11-01T12:00:00Z'), 'America/New_York');
    expect((fall.resetsAt - fall.startsAt) / 3_600_000).toBe(25);
  });

  it('finds the real start of a day whose midnight does not exist', () => {
    // Chile sprang forward at 00:00 on 2022-09-11: that day began at 01:00 local (04:00Z).
    const w = dayWindow(at('2022-09-11T12:00:00Z'), 'America/Santiago');
    expect(w.day).toBe('2022-09-11');
    expect(w.startsAt).toBe(at('2022-09-11T04:00:00Z'));
  });

  it('always brackets now between the start and the reset of its own day', () => {
    const zones = ['UTC', 'Australia/Sydney', 'America/New_York', 'Asia/Kolkata', 'Pacific/Chatham', 'Europe/London'];
    fc.assert(
      fc.property(
        fc.integer({ min: at('2000-01-01T00:00:00Z'), max: at('2040-01-01T00:00:00Z') }),
        fc.constantFrom(...zones),
        (now, zone) => {
          const w = dayWindow(now, zone);
          expect(w.startsAt).toBeLessThanOrEqual(now);
          expect(now).toBeLessThan(w.resetsAt);
          expect(localDate(w.startsAt, zone)).toBe(w.day);
          expect(localDate(w.startsAt - 1, zone)).not.toBe(w.day);
          expect(localDate(w.resetsAt - 1, zone)).toBe(w.day);
          expect(localDate(w.resetsAt, zone)).not.toBe(w.day);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("keeps yesterday's, today's and tomorrow's windows at once (each admission asks for all three)", () => {
    const now = Date.UTC(2026, 5, 10, 12);
    for (const zone of ['UTC', 'Australia/Sydney']) {
      const today = dayWindow(now, zone);
      const yesterday = dayWindow(today.startsAt - 1, zone);
      const tomorrow = dayWindow(today.resetsAt, zone);
      // Served from the cache, not recomputed (same objects), however they alternate.
      expect(dayWindow(now, zone)).toBe(today);
      expect(dayWindow(today.startsAt - 1, zone)).toBe(yesterday);
      expect(dayWindow(today.resetsAt, zone)).toBe(tomorrow);
      expect([yesterday.resetsAt, today.resetsAt]).toEqual([today.startsAt, tomorrow.startsAt]);
    }
  });
});
