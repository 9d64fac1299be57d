import { describe, expect, it } from 'vitest';
import { stripAccents } from './retailers.ts';

describe('stripAccents', () => {
  it('drops accents and spells out undecomposable letters, keeping case', () => {
    expect(stripAccents('Crépuscule Brûlé')).toBe('Crepuscule Brule');
    expect(stripAccents('Øresund Cœur Æther Biały')).toBe('Oresund Coeur Aether Bialy');
  });
});
