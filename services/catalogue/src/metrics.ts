import { Histogram } from '@fragrance/metrics';

/** Matches per search (the exact total): shows how selective customers' queries are. */
export const searchHits = new Histogram({
  name: 'catalogue_search_hits',
  help: 'Total matching fragrances per search request.',
  buckets: [0, 1, 10, 100, 1_000, 10_000, 100_000],
});
