import type { estypes } from '@elastic/elasticsearch';
import type { Sort } from '@fragrance/contracts';
import { InvalidCursorError, type SortValueKind } from './cursor.ts';

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

/**
 * The record id as three numbers whose order is the id's byte order (the order of the `id`
 * keyword): each of its 32 hex digits is a digit in base 22 (`0-9`, `A-F`, `a-f`, in byte
 * order; the dashes sit at the same places in every UUID), 11 + 11 + 10 of them per number, so
 * each stays below 2^53 and travels through JSON exactly. Written at ingest as `search.id_key`.
 * Sorting on these longs instead of the keyword is what lets the index be stored in the default
 * order (INDEX_SORT): a deep page sorted by the keyword cost 3-4 times as much (docs/search.md).
 */
export type IdSortKey = [number, number, number];
const ID_DIGITS = '0123456789ABCDEFabcdef';
const UUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;
const ID_KEY_PARTS = [
  [0, 11],
  [11, 22],
  [22, 32],
] as const;

/** The sort key of a record id, or undefined when it is not a UUID (the contract admits no other id). */
export function idSortKey(id: string): IdSortKey | undefined {
  if (!UUID.test(id)) return undefined;
  const digits = id.replaceAll('-', '');
  const [hi, mid, lo] = ID_KEY_PARTS.map(([from, to]) => {
    let value = 0;
    for (let i = from; i < to; i++) value = value * ID_DIGITS.length + ID_DIGITS.indexOf(digits[i]!);
    return value;
  });
  return [hi!, mid!, lo!];
}

export const ID_KEY_FIELDS = ['search.id_key.hi', 'search.id_key.mid', 'search.id_key.lo'] as const;
const BY_ID: estypes.SortCombinations[] = ID_KEY_FIELDS.map((field) => ({ [field]: 'asc' as const }));
const BY_VOTES: estypes.SortCombinations = { 'rating.count': 'desc' };

/**
 * Every order ends in the record id: unique, so the order is total and search_after never
 * skips or repeats. Elasticsearch sorts on the id's three-number key (idSortKey); a cursor
 * carries the id itself in its place, so cursors read the same as before the key existed.
 */
export const SORT_ORDERS: Readonly<Record<Sort, SortOrder>> = {
  relevance: { sort: ['_score', BY_VOTES, ...BY_ID], kinds: ['float', 'integer', 'keyword'] },
  rating: {
    sort: [{ 'rating.average': { order: 'desc', missing: UNRATED } }, BY_VOTES, ...BY_ID],
    kinds: ['float', 'integer', 'keyword'],
  },
  votes: { sort: [BY_VOTES, ...BY_ID], kinds: ['integer', 'keyword'] },
  newest: {
    sort: [{ year_released: { order: 'desc', missing: NO_YEAR_DESC } }, BY_VOTES, ...BY_ID],
    kinds: ['integer', 'integer', 'keyword'],
  },
  oldest: {
    sort: [{ year_released: { order: 'asc', missing: NO_YEAR_ASC } }, BY_VOTES, ...BY_ID],
    kinds: ['integer', 'integer', 'keyword'],
  },
  // The folded name (case and accents ignored); a name past the keyword's ignore_above has no
  // value there, sorts last and reports null, which the cursor carries as such.
  name: { sort: [{ 'search.name.exact': { order: 'asc', missing: '_last' } }, ...BY_ID], kinds: ['nullable_keyword', 'keyword'] },
  // Dates sort as epoch milliseconds; every record has updated_at (the contract requires it).
  updated: { sort: [{ updated_at: 'asc' }, ...BY_ID], kinds: ['integer', 'keyword'] },
};

/**
 * The order the index is stored in: the default order of a search without a query (votes,
 * then id). A page in that order (filters, years, brands, deep offsets, cursors) stops
 * collecting once it has its hits instead of comparing every match; `total` is still counted
 * exactly. Read off SORT_ORDERS.votes, so the two cannot drift apart.
 */
export const INDEX_SORT: { field: string[]; order: estypes.SortOrder[] } = (() => {
  const keys = SORT_ORDERS.votes.sort.map((entry) => Object.entries(entry as Record<string, estypes.SortOrder>)[0]!);
  return { field: keys.map(([field]) => field), order: keys.map(([, order]) => order) };
})();

/** A value of a sort (Elasticsearch's FieldValue admits `any`; these are what ours hold). */
type SortValue = number | string | boolean | null;

/** search_after for a cursor's values (which end in the record id): the id as its sort key. */
export function searchAfterOf(values: readonly SortValue[]): SortValue[] {
  const id = values.at(-1);
  const key = typeof id === 'string' ? idSortKey(id) : undefined;
  // Signed by us, so only a leaked key gets here with something else.
  if (!key) throw new InvalidCursorError();
  return [...values.slice(0, -1), ...key];
}

/** A cursor's values for a hit (its sort values and id): the id in place of its sort key. */
export function cursorValuesOf(sort: readonly SortValue[], id: string): SortValue[] {
  return [...sort.slice(0, -ID_KEY_FIELDS.length), id];
}

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
