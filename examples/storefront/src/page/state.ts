/*
 * What the shopper has asked for, kept in the page's address (?q=rose&brand=…&page=2&id=…) so
 * Back, Forward, reload and a shared link all show the same thing. Pure functions only: the
 * page reads and writes the address through them, and they turn it into API query parameters.
 */

/** Hits per results page. */
export const PAGE_SIZE = 12;
/** The API's deepest offset + limit for offset paging (deeper pages would need its cursor). */
export const RESULT_WINDOW = 10_000;
/** The API takes at most this many items in a comma list (`note=a,b,…`). */
export const MAX_LIST_ITEMS = 10;
/** The facets the page shows, in this order; the API counts them over every hit. */
export const FACETS = ['brand', 'concentration', 'note', 'season'] as const;
export type FacetName = (typeof FACETS)[number];
export const SEASONS = ['spring', 'summer', 'autumn', 'winter'] as const;

export interface StoreState {
  /** The search text as typed (trimmed); '' shows the most popular fragrances. */
  query: string;
  brand: string | null;
  concentration: string | null;
  /** Notes every hit must have. */
  notes: string[];
  /** Seasons every hit must suit. */
  seasons: string[];
  /** 1-based results page. */
  page: number;
  /** The fragrance whose detail card is open, by id. */
  open: string | null;
}

export const EMPTY_STATE: StoreState = { query: '', brand: null, concentration: null, notes: [], seasons: [], page: 1, open: null };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The deepest page offset paging reaches with `pageSize` hits a page. */
export function maxPage(pageSize = PAGE_SIZE): number {
  return Math.max(1, Math.floor(RESULT_WINDOW / pageSize));
}

function list(value: string | null): string[] {
  if (value === null) return [];
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  return [...new Set(items)].slice(0, MAX_LIST_ITEMS);
}

function single(value: string | null): string | null {
  const trimmed = value?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
}

/**
 * The state a page address stands for. Anything odd in it (a hand-edited link) is read
 * leniently rather than refused: a bad page number is page 1, a bad id opens nothing, a season
 * the API does not know is dropped.
 */
export function stateFromUrl(search: string): StoreState {
  const params = new URLSearchParams(search);
  const page = Number(params.get('page') ?? '1');
  const open = params.get('id');
  return {
    query: (params.get('q') ?? '').trim().slice(0, 200),
    brand: single(params.get('brand')),
    concentration: single(params.get('concentration')),
    notes: list(params.get('note')),
    seasons: list(params.get('season')).filter((season) => (SEASONS as readonly string[]).includes(season)),
    page: Number.isInteger(page) && page >= 1 ? Math.min(page, maxPage()) : 1,
    open: open !== null && UUID.test(open) ? open.toLowerCase() : null,
  };
}

/** The search text (as `queryName`) and the filters that are set: the address and the API name the filters alike. */
function searchAndFilters(state: StoreState, queryName: 'q' | 'query'): URLSearchParams {
  const params = new URLSearchParams();
  if (state.query !== '') params.set(queryName, state.query);
  if (state.brand !== null) params.set('brand', state.brand);
  if (state.concentration !== null) params.set('concentration', state.concentration);
  if (state.notes.length > 0) params.set('note', state.notes.join(','));
  if (state.seasons.length > 0) params.set('season', state.seasons.join(','));
  return params;
}

/** The page address (`?…`, or '' for the start page) for `state`; the inverse of stateFromUrl. */
export function urlFromState(state: StoreState): string {
  const params = searchAndFilters(state, 'q');
  if (state.page > 1) params.set('page', String(state.page));
  if (state.open !== null) params.set('id', state.open);
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** Query parameters of `GET /v1/fragrances` for the results page `state` shows, with its facets. */
export function searchParams(state: StoreState, pageSize = PAGE_SIZE): URLSearchParams {
  const params = searchAndFilters(state, 'query');
  params.set('limit', String(pageSize));
  const offset = (Math.min(state.page, maxPage(pageSize)) - 1) * pageSize;
  if (offset > 0) params.set('offset', String(offset));
  params.set('facets', FACETS.join(','));
  return params;
}

/** True when a facet filter is set. */
export function hasFilters(state: StoreState): boolean {
  return state.brand !== null || state.concentration !== null || state.notes.length > 0 || state.seasons.length > 0;
}

/** True when the shopper searched or filtered (rather than looking at the popular list). */
export function isFiltered(state: StoreState): boolean {
  return state.query !== '' || hasFilters(state);
}

export interface PageInfo {
  page: number;
  /** Pages reachable: every hit, or as many as the API's result window holds. */
  pages: number;
  /** 1-based positions of the first and last hit on this page (0 and 0 when there are none). */
  first: number;
  last: number;
  hasPrevious: boolean;
  hasNext: boolean;
}

/** Where `page` sits among `total` hits. */
export function pageInfo(total: number, page: number, pageSize = PAGE_SIZE): PageInfo {
  const pages = Math.min(Math.max(1, Math.ceil(total / pageSize)), maxPage(pageSize));
  const current = Math.min(Math.max(1, page), pages);
  const first = total === 0 ? 0 : (current - 1) * pageSize + 1;
  const last = Math.min(total, current * pageSize);
  return { page: current, pages, first, last, hasPrevious: current > 1, hasNext: current < pages };
}

/** A new search (text or filters) starts on page 1 with no detail card open. */
function refine(state: StoreState, change: Partial<StoreState>): StoreState {
  return { ...state, ...change, page: 1, open: null };
}

export function withQuery(state: StoreState, query: string): StoreState {
  return refine(state, { query: query.trim().slice(0, 200) });
}

/** Sets (or with null clears) the single-valued facets. */
export function withSingle(state: StoreState, facet: 'brand' | 'concentration', value: string | null): StoreState {
  return refine(state, { [facet]: value });
}

/** Adds or removes one value of a list facet (notes, seasons); a full list takes no more. */
export function toggled(state: StoreState, facet: 'note' | 'season', value: string): StoreState {
  const key = facet === 'note' ? 'notes' : 'seasons';
  const current = state[key];
  const next = current.includes(value) ? current.filter((item) => item !== value) : [...current, value].slice(0, MAX_LIST_ITEMS);
  return refine(state, { [key]: next });
}

export function withoutFilters(state: StoreState): StoreState {
  return refine(state, { brand: null, concentration: null, notes: [], seasons: [] });
}

export function onPage(state: StoreState, page: number): StoreState {
  return { ...state, page: Math.min(Math.max(1, page), maxPage()), open: null };
}

export function opened(state: StoreState, id: string | null): StoreState {
  return { ...state, open: id };
}
