import { describe, expect, it } from 'vitest';
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
});
