import { CONCENTRATION_SPELLINGS, CONCENTRATIONS } from '@fragrance/contracts';
import { describe, expect, it } from 'vitest';
import { matchKey, parseConcentration } from './match-key.ts';

describe('feed matching', () => {
  it('reads concentrations however retailers write them', () => {
    for (const c of CONCENTRATIONS) {
      expect(parseConcentration(c)).toBe(c);
      expect(parseConcentration(c.toUpperCase())).toBe(c);
      for (const alias of CONCENTRATION_SPELLINGS[c]) expect(parseConcentration(alias)).toBe(c);
    }
    expect(parseConcentration('edp')).toBe('Eau de Parfum');
    expect(parseConcentration('Eau Fraiche')).toBe('Eau Fraîche');
    expect(parseConcentration('body mist')).toBeNull();
  });

  it('folds case, accents, punctuation and size suffixes out of a match key', () => {
    expect(matchKey('MAISON LUMEA', 'nuit de seville 100ml', 'EDP')).toBe(matchKey('Maison Lüméa', 'Nuit de Séville', 'Eau de Parfum'));
    expect(matchKey('Maison Lüméa', 'Nuit de Séville - 50mL', 'edp')).toBe(matchKey('Maison Lüméa', 'Nuit de Séville', 'Eau de Parfum'));
    expect(matchKey('Maison Lüméa', 'Nuit de Séville', 'EDT')).not.toBe(matchKey('Maison Lüméa', 'Nuit de Séville', 'EDP'));
    expect(matchKey('Maison Lüméa', 'Noir', 'EDP')).not.toBe(matchKey('Maison Lumina', 'Noir', 'EDP'));
  });
});
