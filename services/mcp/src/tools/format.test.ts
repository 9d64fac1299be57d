import { describe, expect, it } from 'vitest';
import { searchText } from './format.ts';

describe('searchText', () => {
  const page = { data: [], total: 0, offset: 0, next_cursor: null };

  it('says a relaxed answer left words out, before the list', () => {
    const text = searchText({ ...page, relaxed: { dropped: ['zqxwv', 'for', 'men'] } });
    expect(text).toContain('Nothing matched every word; these match without: zqxwv, for, men.');
  });

  it('passes a respelling on', () => {
    expect(searchText({ ...page, did_you_mean: { query: 'maison margiela', total: 12 } })).toContain(
      'Did you mean "maison margiela" (12 matches)?',
    );
  });

  it('says nothing extra for an exact answer', () => {
    expect(searchText(page)).toBe('No fragrances matched (total 0).');
  });
});
