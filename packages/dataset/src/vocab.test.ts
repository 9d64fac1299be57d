import { CONCENTRATION_SPELLINGS, CONCENTRATIONS, foldKey } from '@fragrance/contracts';
import { describe, expect, it } from 'vitest';
import {
  ACCORDS,
  deriveAccords,
  deriveOccasions,
  deriveSeasons,
  matchKey,
  NOTE_ACCORDS,
  NOTES,
  parseConcentration,
  stripAccents,
} from './vocab.ts';

describe('vocabulary', () => {
  it('has ~300 distinct real notes and ~60 accords, every note mapped to known accords', () => {
    expect(NOTES.length).toBeGreaterThanOrEqual(280);
    expect(new Set(NOTES).size).toBe(NOTES.length);
    expect(ACCORDS.length).toBeGreaterThanOrEqual(55);
    for (const note of ['bergamot', 'rose', 'oud', 'vetiver', 'iris', 'ambroxan', 'tonka bean', 'sandalwood', 'patchouli']) {
      expect(NOTES).toContain(note);
    }
    for (const accord of ['woody', 'citrus', 'floral', 'amber', 'aromatic', 'fresh spicy', 'powdery', 'leather', 'musky']) {
      expect(ACCORDS).toContain(accord);
    }
    const accords = new Set<string>(ACCORDS);
    for (const [note, list] of NOTE_ACCORDS) {
      expect(list.length, note).toBeGreaterThan(0);
      for (const a of list) expect(accords.has(a), `${note} → ${a}`).toBe(true);
    }
    // No accord is dead vocabulary: some note leads to each.
    const reached = new Set([...NOTE_ACCORDS.values()].flat());
    expect(ACCORDS.filter((a) => !reached.has(a))).toEqual([]);
  });

  it('derives accords from notes, strongest first, whatever the order of notes within a layer', () => {
    const notes = { top: ['bergamot', 'lemon'], heart: ['lavender'], base: ['tonka bean', 'vanilla'] };
    const accords = deriveAccords(notes);
    // Base notes weigh most (×1.2): sweet 1.92 and vanilla 1.62 edge out citrus 1.6 (2 × 0.8).
    expect(accords).toEqual(['sweet', 'vanilla', 'citrus', 'fresh', 'lavender', 'powdery', 'aromatic']);
    expect(deriveAccords({ top: ['lemon', 'bergamot'], heart: ['lavender'], base: ['vanilla', 'tonka bean'] })).toEqual(accords);
    expect(deriveAccords({ top: ['Bergamot'], heart: [], base: [] })).toEqual(['citrus', 'fresh']);
    expect(deriveAccords({ top: ['not a note'], heart: [], base: [] })).toEqual([]);
    expect(deriveAccords({ top: [], heart: ['oud', 'rose', 'saffron'], base: ['amber', 'leather'] }, 3)).toHaveLength(3);
  });

  it('derives seasons and occasions from accords', () => {
    expect(deriveSeasons(['citrus', 'aquatic', 'fresh'])).toContain('summer');
    expect(deriveSeasons(['citrus', 'aquatic', 'fresh'])).not.toContain('winter');
    expect(deriveSeasons(['amber', 'oud', 'warm spicy'])).toContain('winter');
    expect(deriveOccasions(['amber', 'oud'], 'Extrait de Parfum')).toEqual(expect.arrayContaining(['evening', 'formal']));
    expect(deriveOccasions(['citrus', 'fresh'], 'Eau de Cologne')).toEqual(expect.arrayContaining(['daily', 'sport']));
  });

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
    expect(foldKey('Maison Lüméa')).toBe('maison lumea');
    expect(foldKey('Sølv & Ånd — No. 7')).toBe('solv and no 7'); // & and the dash are punctuation; Å folds to a
    expect(stripAccents('Crépuscule Brûlé')).toBe('Crepuscule Brule');
    expect(matchKey('MAISON LUMEA', 'nuit de seville 100ml', 'EDP')).toBe(matchKey('Maison Lüméa', 'Nuit de Séville', 'Eau de Parfum'));
    expect(matchKey('Maison Lüméa', 'Nuit de Séville - 50mL', 'edp')).toBe(matchKey('Maison Lüméa', 'Nuit de Séville', 'Eau de Parfum'));
    expect(matchKey('Maison Lüméa', 'Nuit de Séville', 'EDT')).not.toBe(matchKey('Maison Lüméa', 'Nuit de Séville', 'EDP'));
    expect(matchKey('Maison Lüméa', 'Noir', 'EDP')).not.toBe(matchKey('Maison Lumina', 'Noir', 'EDP'));
  });
});
