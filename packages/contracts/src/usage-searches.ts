import { z } from 'zod';
import { NonNegativeInteger } from './numbers.ts';
import { integer } from './search.ts';

/** How far back GET /v1/usage/searches reaches: today and the 34 quota days before it (the counters' lifetime). */
export const SEARCH_USAGE_MAX_DAYS = 35;
/** Queries listed per kind when `limit` is absent, and the most a request may ask for. */
export const SEARCH_USAGE_DEFAULT_LIMIT = 20;
export const SEARCH_USAGE_MAX_LIMIT = 100;
/** Longest query text kept (in characters, after folding): longer queries are counted under their first this many. */
export const SEARCH_QUERY_MAX_CHARS = 100;

/** Query parameters of GET /v1/usage/searches; whether `day` is in reach depends on today and is checked by the gateway. */
export const SearchUsageQuery = z
  .strictObject({
    day: z.iso
      .date({ error: 'must be a calendar date YYYY-MM-DD, e.g. 2026-11-01' })
      .optional()
      .meta({
        description: `Quota day (YYYY-MM-DD in the quota time zone), not after today and at most ${SEARCH_USAGE_MAX_DAYS - 1} days before it. Default: today.`,
        examples: ['2026-11-24'],
      }),
    limit: integer(1, SEARCH_USAGE_MAX_LIMIT)
      .optional()
      .meta({ description: `Queries listed per kind, 1..${SEARCH_USAGE_MAX_LIMIT}; default ${SEARCH_USAGE_DEFAULT_LIMIT}.` }),
  })
  .meta({ id: 'SearchUsageQuery' });
export type SearchUsageQuery = z.output<typeof SearchUsageQuery>;

export const QueryCount = z
  .object({
    query: z.string().meta({
      description: `The query text as counted: folded (lower case, accents and punctuation removed, spaces collapsed) and cut to ${SEARCH_QUERY_MAX_CHARS} characters.`,
      examples: ['ysl cinema'],
    }),
    count: z.number().int().min(1).meta({ description: 'Searches with this text that day (of the kind listed).' }),
  })
  .meta({ id: 'QueryCount' });
export type QueryCount = z.infer<typeof QueryCount>;

/** GET /v1/usage/searches: what the owner's keys searched for on one quota day. Free: not counted against the quota. */
export const SearchUsageResponse = z
  .object({
    owner: z.string().meta({ description: "Name of the key's owner: the searches of all the owner's keys are counted together." }),
    time_zone: z.string().meta({ description: 'IANA time zone whose midnight starts a quota day.', examples: ['UTC'] }),
    day: z.iso.date(),
    searches: NonNegativeInteger.meta({ description: 'Searches with a `query` answered that day (2xx or 304; errors are not counted).' }),
    zero_results: NonNegativeInteger.meta({ description: 'Of those, searches that found nothing (`total` 0).' }),
    relaxed: NonNegativeInteger.meta({ description: 'Of those, searches answered by a relaxed query (some words dropped).' }),
    limit: z.number().int().meta({ description: 'Most queries listed per kind.' }),
    top_queries: z.array(QueryCount).meta({ description: 'The most frequent query texts, most frequent first.' }),
    zero_result_queries: z.array(QueryCount).meta({ description: 'The most frequent query texts that found nothing.' }),
    relaxed_queries: z.array(QueryCount).meta({ description: 'The most frequent query texts that were relaxed to find something.' }),
  })
  .meta({ id: 'SearchUsageResponse' });
export type SearchUsageResponse = z.infer<typeof SearchUsageResponse>;
