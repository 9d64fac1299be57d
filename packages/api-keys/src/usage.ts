import type { Redis } from 'ioredis';
import { redisKeys } from './keys.ts';

/*
 * Reading the billing meter: the per-key, per-quota-day counters the admission script increments
 * (usage:<id>:<YYYY-MM-DD>). GET /v1/usage and `ops billing report` both read them through here.
 * Quota days are calendar dates in the quota time zone, so ranges of them are plain calendar
 * arithmetic (done in UTC, where every date has 24 hours).
 */

const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MONTH = /^(\d{4})-(\d{2})$/;

function epochDay(date: string): number {
  const match = DATE.exec(date);
  const ms = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : Number.NaN;
  // Date.UTC rolls 2026-02-30 over into March: a date must read back as itself.
  if (!Number.isFinite(ms) || new Date(ms).toISOString().slice(0, 10) !== date) throw new RangeError(`not a calendar date: ${date}`);
  return ms / DAY_MS;
}

const dateOfEpochDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The calendar date `days` after `date` (before, when negative). */
export function addDays(date: string, days: number): string {
  return dateOfEpochDay(epochDay(date) + days);
}

/** Whole days from `from` to `to` (negative when `to` comes first). */
export function daysBetween(from: string, to: string): number {
  return epochDay(to) - epochDay(from);
}

/** Every date from `from` to `to`, both included, oldest first (empty when `to` comes first). */
export function dateRange(from: string, to: string): string[] {
  const first = epochDay(from);
  const last = epochDay(to);
  const dates: string[] = [];
  for (let day = first; day <= last; day += 1) dates.push(dateOfEpochDay(day));
  return dates;
}

/** First and last date of a month given as YYYY-MM. */
export function monthRange(month: string): { from: string; to: string } {
  const match = MONTH.exec(month);
  const year = Number(match?.[1]);
  const index = Number(match?.[2]) - 1;
  if (!match || index < 0 || index > 11) throw new RangeError(`not a month YYYY-MM: ${month}`);
  const from = dateOfEpochDay(Date.UTC(year, index, 1) / DAY_MS);
  const to = dateOfEpochDay(Date.UTC(year, index + 1, 1) / DAY_MS - 1);
  return { from, to };
}

export interface DailyUsage {
  /** Quota day, YYYY-MM-DD in the quota time zone. */
  day: string;
  /** Requests counted that day (what the quota was charged; what is billed). */
  requests: number;
}

/** One key's counted requests on each of `days` (0 where nothing was counted), in one MGET. */
export async function readDailyUsage(redis: Redis, prefix: string, keyId: string, days: readonly string[]): Promise<DailyUsage[]> {
  if (days.length === 0) return [];
  const keys = redisKeys(prefix);
  const counts = await redis.mget(days.map((day) => keys.usage(keyId, day)));
  return days.map((day, i) => ({ day, requests: Number(counts[i] ?? 0) }));
}

/**
 * The owner of the key with this public id, or undefined when there is none: GET /v1/usage lets a
 * secret key read the meter of its owner's other keys (a publishable key cannot call it).
 */
export async function ownerOfKeyId(redis: Redis, prefix: string, keyId: string): Promise<string | undefined> {
  const keys = redisKeys(prefix);
  const hash = await redis.hget(keys.index(), keyId);
  return hash ? ((await redis.hget(keys.record(hash), 'owner')) ?? undefined) : undefined;
}
