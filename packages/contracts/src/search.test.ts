import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { CONCENTRATIONS } from './fragrance.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { FACETS, normaliseConcentration, SearchQuery, SimilarQuery } from './search.ts';

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
    expect(issues({ facets: 'brand,colour' })[0]).toMatch(/^facets\.1: unknown facet colour/);
    expect(issues({ facets: '' })[0]).toMatch(/^facets\.0: must not contain an empty item/);
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
      '/accords',
      '/brands',
      '/brands/{slug}',
      '/fragrances',
      '/fragrances/export',
      '/fragrances/{id}',
      '/fragrances/{id}/similar',
      '/me',
      '/notes',
      '/openapi.json',
      '/perfumers',
      '/suggest',
      '/usage',
      '/usage/searches',
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
    // Every summary a list returns is extended (SearchHit, SimilarFragrance), so inlined there.
    expect(doc.components?.schemas).toHaveProperty('SimilarFragrance');
    expect(doc.components?.schemas).toHaveProperty('FragranceDetail');
    expect(doc.components?.schemas).toHaveProperty('MeResponse');
    expect(doc.components?.schemas).toHaveProperty('Problem');
    expect(JSON.stringify(doc)).toContain('ETag');
  });
});

describe('OpenAPI parameters carry the constraints the schemas enforce', () => {
  const doc = buildOpenApiDocument();
  interface ParamSchema {
    type?: string;
    minimum?: number;
    maximum?: number;
    enum?: unknown[];
    items?: ParamSchema;
    maxItems?: number;
    maxLength?: number;
  }
  const parameter = (path: '/fragrances' | '/fragrances/{id}/similar', name: string) => {
    const found = (doc.paths?.[path]?.get?.parameters ?? []).find((p) => 'name' in p && p.name === name);
    expect(found, `${path} ${name}`).toBeDefined();
    return found as { schema: ParamSchema; style?: string; explode?: boolean };
  };
  const accepts = (schema: z.ZodType, input: Record<string, string>) => schema.safeParse(input).success;

  it.each([
    ['/fragrances', 'limit', SearchQuery, {}],
    // offset + limit is bounded too: the largest offset needs the smallest page.
    ['/fragrances', 'offset', SearchQuery, { limit: '1' }],
    ['/fragrances', 'year_from', SearchQuery, {}],
    ['/fragrances', 'year_to', SearchQuery, {}],
    ['/fragrances/{id}/similar', 'limit', SimilarQuery, {}],
  ] as const)('%s %s: an integer with the minimum and maximum the schema enforces', (path, name, schema, extra) => {
    const { schema: param } = parameter(path, name);
    expect(param.type).toBe('integer');
    const { minimum, maximum } = param;
    if (minimum === undefined || maximum === undefined) throw new Error(`${name} has no minimum/maximum`);
    expect(accepts(schema, { ...extra, [name]: String(minimum) })).toBe(true);
    expect(accepts(schema, { ...extra, [name]: String(minimum - 1) })).toBe(false);
    expect(accepts(schema, { ...extra, [name]: String(maximum) })).toBe(true);
    expect(accepts(schema, { ...extra, [name]: String(maximum + 1) })).toBe(false);
  });

  it('concentration: the enum is the vocabulary the schema maps every accepted spelling onto', () => {
    const values = parameter('/fragrances', 'concentration').schema.enum ?? [];
    expect([...values].sort()).toEqual([...CONCENTRATIONS].sort());
    for (const value of values) expect(SearchQuery.parse({ concentration: String(value) }).concentration).toBe(value);
    for (const spelling of ['edp', 'EDT', 'extrait', 'eau-de-cologne']) {
      expect(values).toContain(SearchQuery.parse({ concentration: spelling }).concentration);
    }
    expect(accepts(SearchQuery, { concentration: 'PDT' })).toBe(false);
  });

  it('facets: a comma-separated (form, explode: false) array of the facet enum', () => {
    const facets = parameter('/fragrances', 'facets');
    expect(facets).toMatchObject({ style: 'form', explode: false, schema: { type: 'array' } });
    const values = facets.schema.items?.enum ?? [];
    expect([...values].sort()).toEqual([...FACETS].sort());
    expect(SearchQuery.parse({ facets: values.join(',') }).facets).toEqual(values);
    expect(accepts(SearchQuery, { facets: 'colour' })).toBe(false);
  });

  it.each(['note', 'exclude_note', 'accord', 'exclude_accord'])('%s: a comma-separated array with its item and length bounds', (name) => {
    const list = parameter('/fragrances', name);
    expect(list).toMatchObject({ style: 'form', explode: false, schema: { type: 'array', items: { type: 'string' } } });
    const { maxItems, items } = list.schema;
    const maxLength = items?.maxLength;
    if (maxItems === undefined || maxLength === undefined) throw new Error(`${name} has no maxItems/maxLength`);
    const listOf = (n: number) => Array.from({ length: n }, (_, i) => `n${i}`).join(',');
    expect(accepts(SearchQuery, { [name]: listOf(maxItems) })).toBe(true);
    expect(accepts(SearchQuery, { [name]: listOf(maxItems + 1) })).toBe(false);
    expect(accepts(SearchQuery, { [name]: 'x'.repeat(maxLength) })).toBe(true);
    expect(accepts(SearchQuery, { [name]: 'x'.repeat(maxLength + 1) })).toBe(false);
  });

  it('available_in_au is a boolean', () => {
    expect(parameter('/fragrances', 'available_in_au').schema.type).toBe('boolean');
    expect(SearchQuery.parse({ available_in_au: 'false' }).available_in_au).toBe(false);
  });

  it('documents the invalid_cursor code on the search 400', () => {
    const responses = doc.paths?.['/fragrances']?.get?.responses as Record<string, { description?: string }>;
    expect(responses['400']?.description).toContain('invalid_cursor');
  });
});
