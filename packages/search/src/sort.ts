import type { estypes } from '@elastic/elasticsearch';
import type { Sort } from '@fragrance/contracts';
import type { SortValueKind } from './cursor.ts';

/** A sort and the kind of each of its values, which a cursor's search_after must match. */
export interface SortOrder {
  sort: estypes.SortCombinations[];
  kinds: readonly SortValueKind[];
}

/**
 * Missing values get explicit stand-ins rather than `_last`: Elasticsearch would report ±Infinity
 * (as a string) or ±2^63 for them, which a cursor cannot carry back exactly. Ratings are 0..5 and
 * years 1700..2100, so -1, 0 and 9999 sort every unknown after every known value.
 */
const UNRATED = -1;
const NO_YEAR_DESC = 0;
const NO_YEAR_ASC = 9999;

const BY_ID: estypes.SortCombinations = { id: 'asc' };
const BY_VOTES: estypes.SortCombinations = { 'rating.count': 'desc' };

/** Every order ends in the record id: unique, so the order is total and search_after never skips or repeats. */
export const SORT_ORDERS: Readonly<Record<Sort, SortOrder>> = {
  relevance: { sort: ['_score', BY_VOTES, BY_ID], kinds: ['float', 'integer', 'keyword'] },
  rating: {
    sort: [{ 'rating.average': { order: 'desc', missing: UNRATED } }, BY_VOTES, BY_ID],
    kinds: ['float', 'integer', 'keyword'],
  },
  votes: { sort: [BY_VOTES, BY_ID], kinds: ['integer', 'keyword'] },
  newest: {
    sort: [{ year_released: { order: 'desc', missing: NO_YEAR_DESC } }, BY_VOTES, BY_ID],
    kinds: ['integer', 'integer', 'keyword'],
  },
  oldest: {
    sort: [{ year_released: { order: 'asc', missing: NO_YEAR_ASC } }, BY_VOTES, BY_ID],
    kinds: ['integer', 'integer', 'keyword'],
  },
  // The folded name (case and accents ignored); a name past the keyword's ignore_above has no
  // value there, sorts last and reports null, which the cursor carries as such.
  name: { sort: [{ 'search.name.exact': { order: 'asc', missing: '_last' } }, BY_ID], kinds: ['nullable_keyword', 'keyword'] },
  // Dates sort as epoch milliseconds; every record has updated_at (the contract requires it).
  updated: { sort: [{ updated_at: 'asc' }, BY_ID], kinds: ['integer', 'keyword'] },
};

/** The order a search uses: the one asked for, else relevance with a text query and votes without. */
export function sortOrderOf(sort: Sort | undefined, hasQuery: boolean): SortOrder {
  return SORT_ORDERS[sort ?? (hasQuery ? 'relevance' : 'votes')];
}

/**
 * `updated_at >= since` for an RFC 3339 instant as the contract accepts it. Sent as epoch
 * milliseconds: RFC 3339 allows offsets up to ±23:59 and fractions of any length, which
 * Elasticsearch's date parser refuses (offsets past ±18:00, more than 9 fraction digits).
 */
export function updatedSinceFilter(since: string): estypes.QueryDslQueryContainer {
  return { range: { updated_at: { gte: Date.parse(since), format: 'epoch_millis' } } };
}
