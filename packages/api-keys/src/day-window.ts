/** Milliseconds since the epoch; injectable so tests can stand at 23:59:59. */
export type Clock = () => number;
export const systemClock: Clock = () => Date.now();

export interface DayWindow {
  /** The quota day in the configured timezone, YYYY-MM-DD. */
  day: string;
  /** First instant of that day (ms). */
  startsAt: number;
  /** First instant of the next day: when the daily quota resets (ms). */
  resetsAt: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The calendar date of an instant in a timezone, as YYYY-MM-DD. */
export function localDate(instant: number, timeZone: string): string {
  const parts = formatterFor(timeZone).formatToParts(instant);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

const HOURS_48 = 48 * 3_600_000;

/**
 * Binary search over milliseconds for the edge of `day` between lo and hi (at most 48 h apart,
 * in which dates only move forward in every real zone). Forward: date(lo) is `day`, date(hi) is
 * not; returns the first instant after the day. Backward: date(lo) is not `day`, date(hi) is;
 * returns the day's first instant. No offset arithmetic, so days that skip or repeat midnight
 * (DST at 00:00) still get their true boundary.
 */
function edgeOfDay(day: string, lo: number, hi: number, timeZone: string, forward: boolean): number {
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if ((localDate(mid, timeZone) === day) === forward) lo = mid;
    else hi = mid;
  }
  return hi;
}

/**
 * Windows computed so far, a few per zone: every admission asks for yesterday, today and tomorrow,
 * so keeping only the last one made each request recompute two of them (about a hundred Intl
 * calls, the largest item of the gateway's CPU profile).
 */
const cache = new Map<string, DayWindow[]>();
const WINDOWS_KEPT_PER_ZONE = 4;

/** The quota day containing `now` and when it resets; cached per zone until the day changes. */
export function dayWindow(now: number, timeZone: string): DayWindow {
  let windows = cache.get(timeZone);
  const cached = windows?.find((w) => now >= w.startsAt && now < w.resetsAt);
  if (cached) return cached;
  const day = localDate(now, timeZone);
  const resetsAt = edgeOfDay(day, now, now + HOURS_48, timeZone, true);
  const startsAt = edgeOfDay(day, now - HOURS_48, now, timeZone, false);
  const window = { day, startsAt, resetsAt };
  windows = [window, ...(windows ?? [])].slice(0, WINDOWS_KEPT_PER_ZONE);
  cache.set(timeZone, windows);
  return window;
}

/** Whole seconds until the reset, at least 1 (what Retry-After and RateLimit-Reset carry). */
export function secondsUntil(instant: number, now: number): number {
  return Math.max(1, Math.ceil((instant - now) / 1000));
}
