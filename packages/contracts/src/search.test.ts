import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from './openapi.ts';
import { normaliseConcentration, SearchQuery } from './search.ts';

const issues = (input: Record<string, string>) => {
  const result = SearchQuery.safeParse(input);
  return result.success
    ? []
    : result.error.issues.map((i) => `${i.path.join('.') || (i as { keys?: string[] }).keys?.join(',')}: ${i.message}`);
};

describe('normaliseConcentration', () => {
  it.each([
    ['EDP', 'Eau de Parfum'],
    ['EdP', 'Eau de Parfum'],
    ['eau-de-parfum', 'Eau de Parfum'],
    ['edt', 'Eau de Toilette'],
    ['EDC', 'Eau de Cologne'],
    ['extrait', 'Extrait de Parfum'],
    ['EAU FRAICHE', 'Eau Fraîche'],
    ['Eau Fraîche', 'Eau Fraîche'],
    ['parfum', 'Parfum'],
  ])('%s → %s', (input, expected) => expect(normaliseConcentration(input)).toBe(expected));
  it('rejects unknown values', () => {
    expect(normaliseConcentration('PDT')).toBeUndefined();
    expect(normaliseConcentration('')).toBeUndefined();
  });
});

describe('SearchQuery', () => {
  it('parses every parameter into typed values', () => {
    expect(
      SearchQuery.parse({
        query: ' hermes ',
        brand: 'Hermès',
        concentration: 'edt',
        country: 'fr',
        year_from: '1990',
        year_to: '1990',
        limit: '100',
        offset: '9900',
        note: 'Bergamot, pink pepper',
        accord: 'woody',
        exclude_note: 'oud',
        exclude_accord: 'sweet,powdery',
        available_in_au: 'true',
        facets: 'brand,decade,brand',
      }),
    ).toEqual({
      query: 'hermes',
      brand: 'Hermès',
      concentration: 'Eau de Toilette',
      country: 'FR',
      year_from: 1990,
      year_to: 1990,
      limit: 100,
      offset: 9900,
      note: ['Bergamot', 'pink pepper'],
      accord: ['woody'],
      exclude_note: ['oud'],
      exclude_accord: ['sweet', 'powdery'],
      available_in_au: true,
      facets: ['brand', 'decade'],
    });
  });

  it('names each bad parameter', () => {
    expect(issues({ limit: '0' })).toEqual(['limit: must be at least 1']);
    expect(issues({ limit: '101' })).toEqual(['limit: must be at most 100']);
    expect(issues({ limit: '1.5' })).toEqual(['limit: must be an integer']);
    expect(issues({ offset: '-1' })).toEqual(['offset: must be at least 0']);
    expect(issues({ year_from: '19x0' })).toEqual(['year_from: must be an integer']);
    expect(issues({ year_from: '2001', year_to: '2000' })).toEqual(['year_from: must not be greater than year_to']);
    expect(issues({ country: 'FRA' })[0]).toMatch(/^country: /);
    expect(issues({ concentration: 'PDT' })[0]).toMatch(/^concentration: must be one of/);
    expect(issues({ brand: '  ' })).toEqual(['brand: must not be empty']);
    expect(issues({ facets: 'brand,colour' })[0]).toMatch(/^facets: unknown facet colour/);
    expect(issues({ facets: '' })[0]).toMatch(/^facets: must not contain an empty item/);
    expect(issues({ note: 'a,,b' })[0]).toMatch(/^note\.1: must not contain an empty item/);
    expect(issues({ available_in_au: 'yes' })).toEqual(['available_in_au: must be true or false']);
    expect(issues({ cursor: 'not a cursor!' })).toEqual(['cursor: is not a cursor returned by this API']);
    expect(issues({ cursor: 'abc', offset: '0' })).toEqual(['offset: cannot be combined with cursor']);
    expect(issues({ colour: 'red' })[0]).toMatch(/colour/);
  });

  it('enforces the 10,000-hit window on offset + limit', () => {
    expect(issues({ offset: '9980', limit: '20' })).toEqual([]);
    expect(issues({ offset: '9981' })[0]).toMatch(/^offset: offset \+ limit must not exceed 10000/);
  });
});

describe('buildOpenApiDocument', () => {
  it('documents every data endpoint from the schemas', () => {
    const doc = buildOpenApiDocument({ serverUrl: 'https://api.example/v1' });
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths ?? {}).sort()).toEqual([
      '/fragrances',
      '/fragrances/{id}',
      '/fragrances/{id}/similar',
      '/me',
      '/openapi.json',
    ]);
    const search = doc.paths?.['/fragrances']?.get;
    const names = (search?.parameters ?? []).map((p) => ('name' in p ? p.name : ''));
    expect(names).toEqual(
      expect.arrayContaining([
        'query',
        'brand',
        'concentration',
        'year_from',
        'year_to',
        'country',
        'limit',
        'offset',
        'cursor',
        'note',
        'accord',
        'facets',
      ]),
    );
    expect(doc.components?.schemas).toHaveProperty('FragranceSummary');
    expect(doc.components?.schemas).toHaveProperty('FragranceDetail');
    expect(doc.components?.schemas).toHaveProperty('MeResponse');
    expect(doc.components?.schemas).toHaveProperty('Problem');
    expect(JSON.stringify(doc)).toContain('ETag');
  });
});
