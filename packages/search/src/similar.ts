import type { estypes } from '@elastic/elasticsearch';
import { foldKey } from '@fragrance/contracts';
import type { IndexedFragrance } from './mapping.ts';
import { SORT_ORDERS } from './sort.ts';
import { SUMMARY_FROM_DOC_VALUES } from './summary.ts';

/**
 * "More like this" over notes and accords: each shared note or accord scores (rarer ones
 * more, through IDF), main accords count double; ties go to the more popular record.
 */
export function buildSimilarQuery(
  id: string,
  source: Pick<IndexedFragrance, 'search' | 'main_accords'>,
  limit: number,
): estypes.SearchRequest {
  const notes = source.search?.notes ?? [];
  const accords = source.search?.accords ?? [];
  const main = new Set((source.main_accords ?? []).map(foldKey));
  const should: estypes.QueryDslQueryContainer[] = [
    ...notes.map((note) => ({ term: { 'search.notes': { value: note, boost: 1 } } })),
    ...accords.map((accord) => ({ term: { 'search.accords': { value: accord, boost: main.has(accord) ? 2 : 1 } } })),
  ];
  return {
    query: {
      bool: {
        should: should.length ? should : [{ match_none: {} }],
        minimum_should_match: 1,
        must_not: [{ ids: { values: [id] } }],
      },
    },
    sort: [...SORT_ORDERS.relevance.sort],
    size: limit,
    track_total_hits: false,
    ...SUMMARY_FROM_DOC_VALUES,
  };
}
