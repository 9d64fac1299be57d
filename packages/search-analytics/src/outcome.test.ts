import { describe, expect, it } from 'vitest';
import { foldKey } from '@fragrance/contracts';
import { formatSearchOutcome, parseSearchOutcome } from './outcome.ts';
import { searchText } from './text.ts';

describe('the search outcome header', () => {
  it('states the total and whether the query was relaxed, and reads back', () => {
    expect(formatSearchOutcome({ total: 42 })).toBe('total=42; relaxed=0');
    expect(formatSearchOutcome({ total: 0, relaxed: undefined })).toBe('total=0; relaxed=0');
    expect(formatSearchOutcome({ total: 7, relaxed: { dropped: ['eau', 'de', 'toilette'] } })).toBe('total=7; relaxed=1');
    expect(parseSearchOutcome('total=7; relaxed=1')).toEqual({ total: 7, relaxed: true });
    expect(parseSearchOutcome('total=0; relaxed=0')).toEqual({ total: 0, relaxed: false });
  });

  it('reads nothing from what is not one', () => {
    for (const value of [
      undefined,
      '',
      'total=; relaxed=0',
      'total=1;relaxed=0',
      'total=-1; relaxed=0',
      'total=1; relaxed=2',
      ['total=1; relaxed=0'],
      5,
    ]) {
      expect(parseSearchOutcome(value), JSON.stringify(value)).toBeUndefined();
    }
  });
});

describe('searchText', () => {
  it('folds like the search fields and cuts at 100 characters, never half a character', () => {
    expect(searchText('  Rosé  OUD! ')).toBe('rose oud');
    expect(searchText("L'Eau d'Issey")).toBe('l eau d issey');
    expect(searchText('?!')).toBe('');
    expect(searchText('a'.repeat(150))).toBe('a'.repeat(100));
    // 99 letters then a space: the cut text does not end in a space.
    expect(searchText(`${'b'.repeat(99)} cde`)).toBe('b'.repeat(99));
    const astral = searchText('𠀀'.repeat(120));
    expect(Array.from(astral)).toHaveLength(100);
    expect(astral.isWellFormed()).toBe(true);
  });

  it('counts text that is already folded as it came, exactly as folding it would', () => {
    // The definition: foldKey, then the first 100 code points without a trailing space.
    const reference = (query: string) => Array.from(foldKey(query)).slice(0, 100).join('').trimEnd();
    const queries = [
      'dior sauvage',
      'no 5',
      '212 vip men',
      `${'b'.repeat(99)} cde`,
      `${'abc '.repeat(30)}xyz`,
      'a'.repeat(150),
      'Dior sauvage',
      'dior  sauvage',
      ' dior',
      'dior ',
      'eau-de-parfum',
      'rosé oud',
      'ｄｉｏｒ',
      'ﬁgue',
      'œillet',
      '',
      'l eau d issey',
      'l’eau d’issey',
    ];
    for (const query of queries) expect(searchText(query), JSON.stringify(query)).toBe(reference(query));
  });
});
