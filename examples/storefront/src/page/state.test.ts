import { describe, expect, it } from 'vitest';
import {
  EMPTY_STATE,
  hasFilters,
  isFiltered,
  maxPage,
  onPage,
  opened,
  PAGE_SIZE,
  pageInfo,
  searchParams,
  stateFromUrl,
  toggled,
  urlFromState,
  withoutFilters,
  withQuery,
  withSingle,
} from './state.ts';

const ID = '0b6a4c1e-8f2d-4a37-9c55-1d2e3f4a5b6c';

describe('the page address', () => {
  it('round-trips every part of the state', () => {
    const state = {
      query: 'rose oud',
      brand: 'Maison Francis Kurkdjian',
      concentration: 'Eau de Parfum',
      notes: ['rose', 'oud'],
      seasons: ['autumn', 'winter'],
      page: 3,
      open: ID,
    };
    const url = urlFromState(state);
    expect(url).toBe(
      '?q=rose+oud&brand=Maison+Francis+Kurkdjian&concentration=Eau+de+Parfum&note=rose%2Coud&season=autumn%2Cwinter&page=3&id=' + ID,
    );
    expect(stateFromUrl(url)).toEqual(state);
  });

  it('is empty for the start page, and the start page is the empty state', () => {
    expect(urlFromState(EMPTY_STATE)).toBe('');
    expect(stateFromUrl('')).toEqual(EMPTY_STATE);
  });

  it('reads a hand-edited address leniently: bad page, bad id, unknown season, duplicates, too many notes', () => {
    const notes = Array.from({ length: 14 }, (_, i) => `n${i}`);
    const state = stateFromUrl(`?page=-2&id=not-an-id&season=summer,monsoon&note=${['rose', 'rose', ...notes].join(',')}&brand=%20%20`);
    expect(state.page).toBe(1);
    expect(state.open).toBeNull();
    expect(state.seasons).toEqual(['summer']);
    expect(state.notes).toEqual(['rose', ...notes.slice(0, 9)]);
    expect(state.brand).toBeNull();
    expect(stateFromUrl('?page=2.5').page).toBe(1);
    expect(stateFromUrl('?page=999999').page).toBe(maxPage());
  });
});

describe('API parameters', () => {
  it('asks for the page, its filters and the four facets', () => {
    const state = { ...EMPTY_STATE, query: 'vetiver', brand: 'Hermès', notes: ['vetiver', 'iris'], seasons: ['spring'], page: 2 };
    expect(Object.fromEntries(searchParams(state))).toEqual({
      query: 'vetiver',
      brand: 'Hermès',
      note: 'vetiver,iris',
      season: 'spring',
      limit: String(PAGE_SIZE),
      offset: String(PAGE_SIZE),
      facets: 'brand,concentration,note,season',
    });
  });

  it('sends no text, filter or offset on the start page', () => {
    expect(searchParams(EMPTY_STATE).toString()).toBe(`limit=${PAGE_SIZE}&facets=brand%2Cconcentration%2Cnote%2Cseason`);
  });

  it("never pages past the API's result window", () => {
    const params = searchParams({ ...EMPTY_STATE, page: 10_000 }, 20);
    expect(Number(params.get('offset')) + Number(params.get('limit'))).toBe(10_000);
  });
});

describe('paging', () => {
  it('places a page among the hits', () => {
    expect(pageInfo(30, 1, 12)).toEqual({ page: 1, pages: 3, first: 1, last: 12, hasPrevious: false, hasNext: true });
    expect(pageInfo(30, 3, 12)).toEqual({ page: 3, pages: 3, first: 25, last: 30, hasPrevious: true, hasNext: false });
  });

  it('has one empty page without hits, and clamps a page beyond the last', () => {
    expect(pageInfo(0, 1, 12)).toEqual({ page: 1, pages: 1, first: 0, last: 0, hasPrevious: false, hasNext: false });
    expect(pageInfo(13, 7, 12).page).toBe(2);
  });

  it('stops at the result window on a huge result', () => {
    const info = pageInfo(75_000, 1, 12);
    expect(info.pages).toBe(833);
    expect(pageInfo(75_000, 833, 12).hasNext).toBe(false);
  });
});

describe('refining a search', () => {
  const deep = { ...EMPTY_STATE, query: 'rose', page: 4, open: ID };

  it('starts again on page 1 with the detail closed', () => {
    for (const next of [
      withQuery(deep, ' oud '),
      withSingle(deep, 'brand', 'Guerlain'),
      toggled(deep, 'note', 'rose'),
      withoutFilters(deep),
    ]) {
      expect(next.page).toBe(1);
      expect(next.open).toBeNull();
    }
    expect(withQuery(deep, ' oud ').query).toBe('oud');
  });

  it('toggles list facets on and off, and clears every filter but the text', () => {
    const one = toggled(EMPTY_STATE, 'season', 'summer');
    expect(one.seasons).toEqual(['summer']);
    expect(toggled(one, 'season', 'summer').seasons).toEqual([]);
    const filtered = withSingle(toggled(withQuery(EMPTY_STATE, 'amber'), 'note', 'vanilla'), 'concentration', 'Parfum');
    expect(isFiltered(filtered)).toBe(true);
    const cleared = withoutFilters(filtered);
    expect(cleared).toEqual({ ...EMPTY_STATE, query: 'amber' });
    expect(isFiltered(EMPTY_STATE)).toBe(false);
    expect(hasFilters(filtered)).toBe(true);
    expect(hasFilters(cleared)).toBe(false);
    expect(isFiltered(cleared)).toBe(true);
  });

  it('keeps the search when a page or a detail card changes', () => {
    expect(onPage(deep, 0)).toEqual({ ...deep, page: 1, open: null });
    expect(opened(deep, null)).toEqual({ ...deep, open: null });
    expect(opened(EMPTY_STATE, ID).open).toBe(ID);
  });
});
