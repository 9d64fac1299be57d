import type { Request, RequestHandler } from 'express';
import onHeaders from 'on-headers';
import { isRedisUnavailableError } from '@fragrance/redis';
import { parseSearchOutcome, SEARCH_OUTCOME_HEADER, type SearchRecorder } from '@fragrance/search-analytics';
import { quotaOf } from './api-key-auth.ts';
import { timedRedisCall } from './metrics.ts';

/** The `query` parameter as the catalogue reads it (first value, `+` as a space); undefined without one. */
function queryParam(req: Request): string | undefined {
  const url = req.originalUrl;
  const at = url.indexOf('?');
  if (at === -1) return undefined;
  return new URLSearchParams(url.slice(at + 1)).get('query') ?? undefined;
}

/**
 * Counts the key owner's text searches (docs/search.md#search-analytics). The catalogue states what
 * each one found in SEARCH_OUTCOME_HEADER, on computed, cached and 304 answers alike, and so does
 * the edge cache when it answers itself; this removes the header from every answer, whichever
 * path produced it, and once a GET with a `query` has been answered 2xx or 304 counts it for the
 * key's owner on the quota day it was admitted on. Fire and forget: the count never delays or
 * fails the answer; a failure is logged (an outage is already logged once by the Redis client's
 * outage policy, so its errors are not logged again per search).
 */
export function countSearches(record: SearchRecorder): RequestHandler {
  return (req, res, next) => {
    onHeaders(res, () => {
      const stated = res.getHeader(SEARCH_OUTCOME_HEADER);
      if (stated === undefined) return;
      // Internal between the catalogue and the edge: never given to a client.
      res.removeHeader(SEARCH_OUTCOME_HEADER);
      if (req.method !== 'GET' || res.statusCode >= 400) return;
      const quota = quotaOf(res);
      const outcome = parseSearchOutcome(stated);
      const query = queryParam(req);
      if (!quota || !outcome || query === undefined) return;
      const search = { owner: quota.owner, day: quota.day, query, ...outcome };
      res.once('finish', () => {
        timedRedisCall('search_analytics', () => record(search)).catch((error: unknown) => {
          // Neither the query nor the key goes in the line: request logs carry neither header nor key.
          if (!isRedisUnavailableError(error)) req.log?.warn({ err: error }, 'could not count a search');
        });
      });
    });
    next();
  };
}
