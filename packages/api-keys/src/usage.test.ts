import { describe, expect, it } from 'vitest';
import { addDays, dateRange, daysBetween, monthRange } from './usage.ts';

describe('quota-day calendar arithmetic', () => {
  it('adds days across months, years and leap days', () => {
    expect(addDays('2026-11-30', 1)).toBe('2026-12-01');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2028-03-01', -1)).toBe('2028-02-29');
    expect(addDays('2026-11-24', -89)).toBe('2026-08-27');
    expect(daysBetween('2026-08-27', '2026-11-24')).toBe(89);
  });

  it('lists a range with both ends, and nothing when it is backwards', () => {
    expect(dateRange('2026-02-27', '2026-03-02')).toEqual(['2026-02-27', '2026-02-28', '2026-03-01', '2026-03-02']);
    expect(dateRange('2026-03-02', '2026-03-01')).toEqual([]);
  });

  it('knows the length of every month', () => {
    expect(monthRange('2026-02')).toEqual({ from: '2026-02-01', to: '2026-02-28' });
    expect(monthRange('2028-02')).toEqual({ from: '2028-02-01', to: '2028-02-29' });
    expect(monthRange('2026-12')).toEqual({ from: '2026-12-01', to: '2026-12-31' });
  });

  it('refuses what is not a date or a month', () => {
    expect(() => addDays('2026-02-30', 1)).toThrow(RangeError);
    expect(() => addDays('26-1-1', 1)).toThrow(RangeError);
    expect(() => monthRange('2026-13')).toThrow(RangeError);
    expect(() => monthRange('2026-1')).toThrow(RangeError);
  });
});
