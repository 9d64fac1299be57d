import type { Router } from 'express';
import type { Redis } from 'ioredis';
import { addDays } from '@fragrance/api-keys';
import { SEARCH_USAGE_DEFAULT_LIMIT, SEARCH_USAGE_MAX_DAYS, SearchUsageQuery, type SearchUsageResponse } from '@fragrance/contracts';
import { parseQuery, ServiceUnavailableError, ValidationError } from '@fragrance/http';
import { readSearchReport } from '@fragrance/search-analytics';
import { timedRedisCall } from '../metrics.ts';
import { ownKeyRoutes } from './own-key.ts';

/** The quota day asked for (default today): not after today, nor further back than the counters are kept. */
export function searchUsageDay(day: string | undefined, today: string): string {
  if (day === undefined) return today;
  const oldest = addDays(today, -(SEARCH_USAGE_MAX_DAYS - 1));
  if (day > today) throw new ValidationError([{ name: 'day', reason: `must not be after today (${today} in the quota time zone)` }]);
  if (day < oldest) {
    throw new ValidationError([
      { name: 'day', reason: `must be at most ${SEARCH_USAGE_MAX_DAYS - 1} days before today, so ${oldest} or later` },
    ]);
  }
  return day;
}

/**
 * GET /v1/usage/searches: what the calling key's owner searched for on one quota day (all the
 * owner's keys together), read from the counters the gateway keeps (packages/search-analytics).
 * Mounted behind apiKeyAuth in peek mode: free, like /v1/usage.
 */
export function searchUsageRoutes(options: { redis: Redis; prefix: string; timeZone: string }): Router {
  return ownKeyRoutes(async (req, quota): Promise<SearchUsageResponse> => {
    const query = parseQuery(req, SearchUsageQuery);
    // Today is the quota day the admission script (Redis's clock) just decided.
    const day = searchUsageDay(query.day, quota.day);
    const limit = query.limit ?? SEARCH_USAGE_DEFAULT_LIMIT;
    const report = await timedRedisCall('search_usage', () =>
      readSearchReport(options.redis, options.prefix, { owner: quota.owner, day, limit }),
    ).catch((error: unknown) => {
      throw new ServiceUnavailableError('Search usage cannot be read right now; try again shortly.', error);
    });
    return {
      owner: quota.owner,
      time_zone: options.timeZone,
      day,
      searches: report.searches,
      zero_results: report.zeroResults,
      relaxed: report.relaxed,
      limit,
      top_queries: report.topQueries,
      zero_result_queries: report.zeroResultQueries,
      relaxed_queries: report.relaxedQueries,
    };
  });
}
