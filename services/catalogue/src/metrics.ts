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

/** What the response cache holds (catalogue_response_cache_bytes, _entries), read at scrape time. */
export const { observe: observeResponseCache } = cacheGauges('catalogue_response_cache', 'in-process response cache');
