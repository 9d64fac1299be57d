import { describe, expect, it } from 'vitest';
import { searchFields } from './mapping.ts';
import { queryKey } from './normalise.ts';
import { makeRecord } from './testing.ts';

describe('folding', () => {
  it('folds a query like the indexed fields (foldKey: case, accents, punctuation)', () => {
    expect(queryKey("Terre d'Hermès")).toBe('terre d hermes');
    expect(queryKey('TERRE D’HERMES')).toBe('terre d hermes');
    expect(queryKey('  Dolce&Gabbana  ')).toBe('dolce gabbana');
    expect(queryKey('Ølfactive Ñandú')).toBe('olfactive nandu');
  });

  it('keeps at most ten words of a query', () => {
    expect(queryKey('a b c d e f g h i j k l').split(' ')).toHaveLength(10);
    expect(queryKey('!!! ???')).toBe('');
  });

  it('computes folded search fields from a record', () => {
    const record = makeRecord({
      name: 'Crème Brûlée',
      brand: 'Maison Éclat',
      notes: { top: ['Bergamot'], heart: ['Rose', 'bergamot'] },
      accords: ['Floral'],
    });
    expect(searchFields(record)).toEqual({
      name: 'creme brulee',
      brand: 'maison eclat',
      perfumers: [],
      notes: ['bergamot', 'rose', 'musk'],
      accords: ['floral'],
      name_spellings: [],
      brand_aliases: ['eclat'],
      full_names: ['maison eclat creme brulee', 'creme brulee maison eclat', 'eclat creme brulee', 'creme brulee eclat'],
    });
  });
});
