import { describe, expect, it } from 'vitest';
import { brandHeading } from './format.ts';

describe('brandHeading', () => {
  it('names the country when the brand has one', () => {
    expect(brandHeading({ name: 'Maison Rose', country: 'FR', fragrance_count: 12 })).toBe('Maison Rose (FR): 12 fragrances');
  });

  it('prints no empty or "null" parentheses when the country is unknown', () => {
    // The API answers "" for a brand whose records carry no country; older answers said null.
    for (const country of ['', null, undefined]) {
      expect(brandHeading({ name: 'Maison Rose', country, fragrance_count: 1 })).toBe('Maison Rose: 1 fragrance');
    }
  });
});
