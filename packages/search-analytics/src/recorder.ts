import type { Redis } from 'ioredis';
import { loadLuaScript, scriptCommand } from '@fragrance/redis';
import { SEARCH_ANALYTICS_CAP, SEARCH_ANALYTICS_KEEP, SEARCH_ANALYTICS_TTL_SECONDS, searchAnalyticsKeys } from './keys.ts';
import type { SearchOutcome } from './outcome.ts';
import { searchText } from './text.ts';

/** Read once at module load; run by EVALSHA (defineCommand). */
const RECORD = loadLuaScript(new URL('./record-5.lua', import.meta.url));
const COMMAND = 'fcsRecordSearch';

/** One search the gateway answered (2xx or 304) for a key of `owner`. */
export interface SearchRecord extends SearchOutcome {
  /** The key's owner (never the key). */
  owner: string;
  /** The quota day the search was admitted on (YYYY-MM-DD in the quota time zone). */
  day: string;
  /** The `query` parameter as sent; folded and cut here. */
  query: string;
}

export interface SearchRecorderOptions {
  redis: Redis;
  /** The gateway's REDIS_PREFIX (default `fcs:`). */
  prefix: string;
  /** Tests only: smaller bounds (defaults SEARCH_ANALYTICS_CAP, SEARCH_ANALYTICS_KEEP, SEARCH_ANALYTICS_TTL_SECONDS). */
  cap?: number;
  keep?: number;
  ttlSeconds?: number;
}

/**
 * Counts a search: one script run (one round trip) adds it to the day's totals and its folded text
 * to the owner's sorted sets, trimming any set past the cap. Resolves false when the text folds
 * to nothing (punctuation alone) and nothing was counted. The caller does not wait for it.
 */
export type SearchRecorder = (search: SearchRecord) => Promise<boolean>;

export function createSearchRecorder(options: SearchRecorderOptions): SearchRecorder {
  const { redis, prefix, cap = SEARCH_ANALYTICS_CAP, keep = SEARCH_ANALYTICS_KEEP, ttlSeconds = SEARCH_ANALYTICS_TTL_SECONDS } = options;
  if (!(Number.isSafeInteger(keep) && keep >= 1 && Number.isSafeInteger(cap) && cap >= keep)) {
    throw new RangeError(`search analytics: need 1 <= keep (${keep}) <= cap (${cap})`);
  }
  const keys = searchAnalyticsKeys(prefix);
  const run = scriptCommand<number>(redis, COMMAND, RECORD);
  return async ({ owner, day, query, total, relaxed }) => {
    const text = searchText(query);
    if (text === '') return false;
    await run(
      keys.owners(day),
      keys.totals(day, owner),
      keys.top(day, owner),
      keys.zeroResults(day, owner),
      keys.relaxed(day, owner),
      owner,
      text,
      total === 0 ? 1 : 0,
      relaxed ? 1 : 0,
      cap,
      keep,
      ttlSeconds,
    );
    return true;
  };
}
