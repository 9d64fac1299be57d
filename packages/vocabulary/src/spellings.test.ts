import { foldKey } from '@fragrance/contracts';
import { describe, expect, it } from 'vitest';
import { cardinalWords, nameSpellings, querySpellings } from './spellings.ts';

describe('nameSpellings', () => {
  it('spells numbers out, cardinal and digit by digit', () => {
    expect(nameSpellings('1 Million')).toContain('one million');
    expect(nameSpellings('212 VIP')).toEqual(expect.arrayContaining(['two hundred twelve vip', 'two one two vip']));
  });

  it('writes a number sign every way people type it', () => {
    for (const name of ['N°5', 'No. 5', 'Nº5', 'no 5']) {
      expect([foldKey(name), ...nameSpellings(name)]).toEqual(expect.arrayContaining(['no 5', 'no5', 'number 5', 'n5']));
    }
    expect(nameSpellings('N°5')).toContain('no 5');
  });

  it('joins elisions (straight and curly apostrophes) and hyphenated words', () => {
    expect(nameSpellings("L'Eau d'Hiver")).toContain('leau dhiver');
    expect(nameSpellings('L’Air du Temps')).toContain('lair du temps');
    expect(nameSpellings('Ylang-Ylang')).toContain('ylangylang');
    expect(nameSpellings("Grey's Vetiver")).toContain('greys vetiver');
    expect(nameSpellings("O'Pomelo")).toContain('opomelo');
    expect(nameSpellings("Ex'cla-ma'tion Wild Musk")).toEqual(expect.arrayContaining(['excla mation wild musk', 'exclamation wild musk']));
  });

  it('spells & as "and", and leaves out the name itself', () => {
    expect(nameSpellings('Myrrh & Tonka')).toContain('myrrh and tonka');
    expect(nameSpellings('Sauvage')).toEqual([]);
  });
});

describe('querySpellings', () => {
  it('joins single letters the way acronyms are indexed', () => {
    expect(querySpellings('d g light blue')).toContain('dg light blue');
    expect(querySpellings('d and g light blue')).toContain('dg light blue');
    expect(querySpellings('a f fierce')).toContain('af fierce');
    expect(querySpellings('l eau d hiver')).toEqual([]);
  });

  it('turns number words into digits', () => {
    expect(querySpellings('one million')).toContain('1 million');
    expect(querySpellings('two one two vip')).toContain('212 vip');
    expect(querySpellings('twenty one')).toContain('21');
    expect(querySpellings('chanel number five')).toContain('chanel number 5');
  });
});

describe('cardinalWords', () => {
  it('reads numbers under a thousand', () => {
    expect(cardinalWords(0)).toBe('zero');
    expect(cardinalWords(21)).toBe('twenty one');
    expect(cardinalWords(40)).toBe('forty');
    expect(cardinalWords(100)).toBe('one hundred');
    expect(cardinalWords(1881)).toBeUndefined();
  });
});
