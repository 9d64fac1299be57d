import type { Redis } from 'ioredis';
import type { QueryCount } from '@fragrance/contracts';
import { searchAnalyticsKeys } from './keys.ts';

/** One owner's searches on one quota day, as GET /v1/usage/searches and `ops search report` show them. */
export interface SearchReport {
  owner: string;
  day: string;
  /** Exact counts of the day. */
  searches: number;
  zeroResults: number;
  relaxed: number;
  /** The most frequent texts of each kind, most frequent first (ties in text order), at most `limit` each. */
  topQueries: QueryCount[];
  zeroResultQueries: QueryCount[];
  relaxedQueries: QueryCount[];
}

/** Sorted-set replies WITHSCORES ([member, score, …]) as counts, most frequent first, ties by text. */
function counts(reply: unknown): QueryCount[] {
  const flat = Array.isArray(reply) ? (reply as unknown[]) : [];
  const out: QueryCount[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push({ query: String(flat[i]), count: Number(flat[i + 1]) });
  return out.sort((a, b) => b.count - a.count || (a.query < b.query ? -1 : a.query > b.query ? 1 : 0));
}

/** One owner's report for one day, read in one pipelined round trip (an owner without searches gets zeros). */
export async function readSearchReport(
  redis: Redis,
  prefix: string,
  { owner, day, limit }: { owner: string; day: string; limit: number },
): Promise<SearchReport> {
  const keys = searchAnalyticsKeys(prefix);
  const replies = await redis
    .pipeline()
    .hmget(keys.totals(day, owner), 'searches', 'zero_results', 'relaxed')
    .zrevrange(keys.top(day, owner), 0, limit - 1, 'WITHSCORES')
    .zrevrange(keys.zeroResults(day, owner), 0, limit - 1, 'WITHSCORES')
    .zrevrange(keys.relaxed(day, owner), 0, limit - 1, 'WITHSCORES')
    .exec();
  if (!replies) throw new Error('the search report pipeline was not run');
  const values = replies.map(([error, value]) => {
    if (error) throw error;
    return value;
  });
  const totals = Array.isArray(values[0]) ? (values[0] as (string | null)[]) : [];
  return {
    owner,
    day,
    searches: Number(totals[0] ?? 0),
    zeroResults: Number(totals[1] ?? 0),
    relaxed: Number(totals[2] ?? 0),
    topQueries: counts(values[1]),
    zeroResultQueries: counts(values[2]),
    relaxedQueries: counts(values[3]),
  };
}

/** The owners who searched on `day`, in name order. */
export async function listSearchOwners(redis: Redis, prefix: string, day: string): Promise<string[]> {
  const owners = await redis.smembers(searchAnalyticsKeys(prefix).owners(day));
  return owners.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
