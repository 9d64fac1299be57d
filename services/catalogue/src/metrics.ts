import { cacheGauges, Counter, Histogram } from '@fragrance/metrics';

/** Matches per search (the exact total): shows how selective customers' queries are. */
export const searchHits = new Histogram({
  name: 'catalogue_search_hits',
  help: 'Total matching fragrances per search request.',
  buckets: [0, 1, 10, 100, 1_000, 10_000, 100_000],
});

/**
 * Response cache lookups by route (search, detail, similar) and outcome: `hit`, `miss`, `stale`
 * (held for an older catalogue generation, recomputed), `shared` (joined a computation in
 * flight for the same key), `bypass` (generation unknown, e.g. Redis away: answered uncached).
 */
export const responseCacheLookups = new Counter({
  name: 'catalogue_response_cache_lookups_total',
  help: 'Response cache lookups by route and outcome (hit, miss, stale, shared, bypass).',
  labelNames: ['route', 'outcome'] as const,
});

/**
 * Requests whose Elasticsearch query failed (outage, breaker open), by route and what the cache
 * could do: `served` (a held answer of the current generation, stale-if-error), `not_held`,
 * `other_generation` (held for an index or counter no longer current: never served), `too_old`
 * (past RESPONSE_CACHE_STALE_IF_ERROR_SECONDS), `unconfirmed` (Redis could not confirm the counter).
 */
export const staleIfError = new Counter({
  name: 'catalogue_response_cache_stale_if_error_total',
  help: 'Failed queries answered from a stale cached answer (served) or not (why), by route.',
  labelNames: ['route', 'result'] as const,
});

/** What the response cache holds (catalogue_response_cache_bytes, _entries), read at scrape time. */
export const { observe: observeResponseCache } = cacheGauges('catalogue_response_cache', 'in-process response cache');
