import { describe, expect, it } from 'vitest';
import { SearchQuery } from '@fragrance/contracts';
import { decodeCursor, encodeCursor, queryFingerprint, SearchInputError } from './cursor.ts';
import { searchFields } from './mapping.ts';
import { queryKey } from './normalise.ts';
import { buildSearchQuery } from './query.ts';
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
    });
  });
});

describe('cursor', () => {
  const params = SearchQuery.parse({ query: 'rose', brand: 'X' });
  const fingerprint = queryFingerprint(params);

  it('round-trips and ignores paging parameters in the fingerprint', () => {
    const cursor = encodeCursor({ after: [1.5, 10, 'id'], position: 40 }, fingerprint);
    expect(decodeCursor(cursor, fingerprint)).toEqual({ after: [1.5, 10, 'id'], position: 40 });
    expect(queryFingerprint(SearchQuery.parse({ brand: 'X', query: 'rose', limit: '5', facets: 'brand' }))).toBe(fingerprint);
  });

  it('rejects a cursor from another query, or a forged one, as a cursor error', () => {
    const cursor = encodeCursor({ after: [1, 'id'], position: 20 }, queryFingerprint(SearchQuery.parse({ query: 'oud' })));
    expect(() => decodeCursor(cursor, fingerprint)).toThrowError(/different query/);
    for (const bad of ['abc', Buffer.from('{"a":[{}],"p":1,"f":"x"}').toString('base64url'), Buffer.from('[1]').toString('base64url')]) {
      expect(() => decodeCursor(bad, fingerprint)).toThrowError(SearchInputError);
    }
  });

  it('rejects a cursor whose sort values do not fit the query', () => {
    const noText = SearchQuery.parse({ brand: 'X' });
    const cursor = encodeCursor({ after: [1, 2, 'id'], position: 20 }, queryFingerprint(noText));
    expect(() => buildSearchQuery({ ...noText, cursor })).toThrowError(SearchInputError);
  });
});
