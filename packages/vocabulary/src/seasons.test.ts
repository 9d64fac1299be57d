import { describe, expect, it } from 'vitest';
import { deriveOccasions, deriveSeasons } from './seasons.ts';

describe('seasons and occasions', () => {
  it('derives seasons and occasions from accords', () => {
    expect(deriveSeasons(['citrus', 'aquatic', 'fresh'])).toContain('summer');
    expect(deriveSeasons(['citrus', 'aquatic', 'fresh'])).not.toContain('winter');
    expect(deriveSeasons(['amber', 'oud', 'warm spicy'])).toContain('winter');
    expect(deriveOccasions(['amber', 'oud'], 'Extrait de Parfum')).toEqual(expect.arrayContaining(['evening', 'formal']));
    expect(deriveOccasions(['citrus', 'fresh'], 'Eau de Cologne')).toEqual(expect.arrayContaining(['daily', 'sport']));
  });
});
