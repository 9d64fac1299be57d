import type { Router } from 'express';
import type { Redis } from 'ioredis';
import { addDays, dateRange, daysBetween, ownerOfKeyId, readDailyUsage } from '@fragrance/api-keys';
import { USAGE_DEFAULT_DAYS, USAGE_MAX_DAYS, UsageQuery, type InvalidParam, type UsageResponse } from '@fragrance/contracts';
import { parseQuery, ServiceUnavailableError, ValidationError } from '@fragrance/http';
import { timedRedisCall } from '../metrics.ts';
import { ownKeyRoutes } from './own-key.ts';

const later = (a: string, b: string) => (a > b ? a : b);

/**
 * The quota days a usage query covers, given today's quota day: `to` defaults to today, `from` to
 * 30 days before `to` (never before the oldest day served). A range that ends after today, starts
 * after its end or reaches past the 90 days served is refused, naming the parameter at fault.
 */
export function usageRange(query: UsageQuery, today: string): { from: string; to: string } {
  const oldest = addDays(today, -(USAGE_MAX_DAYS - 1));
  const to = query.to ?? today;
  const from = query.from ?? later(addDays(to, -(USAGE_DEFAULT_DAYS - 1)), oldest);
  const problems: InvalidParam[] = [];
  if (to > today) problems.push({ name: 'to', reason: `must not be after today (${today} in the quota time zone)` });
  if (from < oldest) {
    problems.push({ name: 'from', reason: `must be at most ${USAGE_MAX_DAYS - 1} days before today, so ${oldest} or later` });
  }
  if (daysBetween(from, to) < 0) problems.push({ name: query.from === undefined ? 'to' : 'from', reason: `must not be after to (${to})` });
  if (problems.length > 0) throw new ValidationError(problems);
  return { from, to };
}

/**
 * GET /v1/usage: the calling key's (or, with key_id, another key of its owner's) counted requests per quota day, read from the same counters
 * the admission script increments and `ops billing report` bills. Mounted behind apiKeyAuth in
 * peek mode: reading usage is free and ignores the token bucket, like /v1/me.
 */
export function usageRoutes(options: { redis: Redis; prefix: string; timeZone: string }): Router {
  return ownKeyRoutes(async (req, quota): Promise<UsageResponse> => {
    const query = parseQuery(req, UsageQuery);
    // Today is the quota day the admission script (Redis's clock) just decided.
    const { from, to } = usageRange(query, quota.day);
    const keyId = query.key_id ?? quota.keyId;
    const unavailable = (error: unknown) => {
      throw new ServiceUnavailableError('Usage cannot be read right now; try again shortly.', error);
    };
    // Another key's meter only if it is the same owner's (an unknown key and a stranger's look alike).
    if (keyId !== quota.keyId) {
      const owner = await timedRedisCall('usage', () => ownerOfKeyId(options.redis, options.prefix, keyId)).catch(unavailable);
      if (owner !== quota.owner) throw new ValidationError([{ name: 'key_id', reason: `is not a key of ${quota.owner}` }]);
    }
    const days = await timedRedisCall('usage', () => readDailyUsage(options.redis, options.prefix, keyId, dateRange(from, to))).catch(
      unavailable,
    );
    return {
      key_id: keyId,
      owner: quota.owner,
      time_zone: options.timeZone,
      from,
      to,
      total: days.reduce((sum, day) => sum + day.requests, 0),
      days: days.map(({ day, requests }) => ({ date: day, requests })),
    };
  });
}
