import { describe, expect, it } from 'vitest';
import { ACCORDS, deriveAccords, NOTE_ACCORDS, NOTES } from './notes.ts';

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
});
