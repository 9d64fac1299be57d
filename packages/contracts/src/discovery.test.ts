import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { BrandSlugParams, BrandsQuery, keyOfSlug, slugOf, SUGGEST_TYPES, SuggestQuery, TermsQuery } from './discovery.ts';
import { OCCASIONS, SEASONS } from './fragrance.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { SearchQuery } from './search.ts';
import { foldKey } from './text.ts';

const accepts = (schema: z.ZodType, input: Record<string, string>) => schema.safeParse(input).success;
const issues = (schema: z.ZodType, input: unknown) => {
  const result = schema.safeParse(input);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

interface ParamSchema {
  type?: string;
  minimum?: number;
  maximum?: number;
  multipleOf?: number;
  enum?: unknown[];
  items?: ParamSchema;
  maxItems?: number;
  maxLength?: number;
  pattern?: string;
}
const doc = buildOpenApiDocument();
const parameter = (path: string, name: string) => {
  const found = (doc.paths?.[path]?.get?.parameters ?? []).find((p) => 'name' in p && p.name === name);
  expect(found, `${path} ${name}`).toBeDefined();
  return found as { schema: ParamSchema; style?: string; explode?: boolean; required?: boolean };
};

describe('search parameters of issue 14', () => {
  it('parses the new filters', () => {
    expect(
      SearchQuery.parse({
        perfumer: ' Jean-Claude Ellena ',
        season: 'Winter,autumn,winter',
        occasion: 'date-night',
        rating_min: '4.25',
        votes_min: '100',
        highlight: 'true',
      }),
    ).toEqual({
      perfumer: 'Jean-Claude Ellena',
      season: ['winter', 'autumn'],
      occasion: ['date night'],
      rating_min: 4.25,
      votes_min: 100,
      highlight: true,
    });
  });

  it('names each bad value', () => {
    expect(issues(SearchQuery, { season: 'monsoon' })).toEqual([`season.0: unknown value "monsoon"; use any of ${SEASONS.join(', ')}`]);
    expect(issues(SearchQuery, { rating_min: '5.5' })).toEqual(['rating_min: must be at most 5']);
    expect(issues(SearchQuery, { rating_min: '4.255' })[0]).toMatch(/^rating_min: must be a decimal/);
    expect(issues(SearchQuery, { rating_min: '1e0' })[0]).toMatch(/^rating_min: must be a decimal/);
    expect(issues(SearchQuery, { votes_min: '-1' })).toEqual(['votes_min: must be at least 0']);
    expect(issues(SearchQuery, { highlight: 'yes' })).toEqual(['highlight: must be true or false']);
    expect(issues(SearchQuery, { perfumer: ' ' })).toEqual(['perfumer: must not be empty']);
  });

  it('OpenAPI: rating_min a number with bounds and two decimals, votes_min an integer, season/occasion enum lists', () => {
    expect(parameter('/fragrances', 'rating_min').schema).toMatchObject({ type: 'number', minimum: 0, maximum: 5, multipleOf: 0.01 });
    for (const ok of ['0', '5', '3.75', '4.1']) expect(accepts(SearchQuery, { rating_min: ok }), ok).toBe(true);
    const votes = parameter('/fragrances', 'votes_min').schema;
    expect(votes).toMatchObject({ type: 'integer', minimum: 0 });
    expect(accepts(SearchQuery, { votes_min: String(votes.maximum) })).toBe(true);
    expect(accepts(SearchQuery, { votes_min: String((votes.maximum ?? 0) + 1) })).toBe(false);
    for (const [name, values] of [
      ['season', SEASONS],
      ['occasion', OCCASIONS],
    ] as const) {
      const list = parameter('/fragrances', name);
      expect(list).toMatchObject({ style: 'form', explode: false, schema: { type: 'array' } });
      expect(list.schema.items?.enum).toEqual([...values]);
      expect(SearchQuery.parse({ [name]: values.join(',') })[name]).toEqual([...values]);
    }
    expect(parameter('/fragrances', 'highlight').schema.type).toBe('boolean');
  });
});

describe('GET /suggest and the browse lists', () => {
  it('suggest: q required and not blank, types an enum list, limit 1..20', () => {
    expect(SuggestQuery.parse({ q: 'terre', types: 'brand,note', limit: '5' })).toEqual({ q: 'terre', types: ['brand', 'note'], limit: 5 });
    expect(issues(SuggestQuery, {})[0]).toMatch(/^q: /);
    expect(issues(SuggestQuery, { q: ' !? ' })).toEqual(['q: must contain a letter or digit']);
    expect(issues(SuggestQuery, { q: 'x'.repeat(101) })).toEqual(['q: must be at most 100 characters']);
    expect(issues(SuggestQuery, { q: 'a', types: 'colour' })[0]).toMatch(/^types\.0: unknown type "colour"/);
    expect(issues(SuggestQuery, { q: 'a', limit: '21' })).toEqual(['limit: must be at most 20']);
    expect(parameter('/suggest', 'q')).toMatchObject({ required: true, schema: { type: 'string', maxLength: 100 } });
    expect(parameter('/suggest', 'types').schema.items?.enum).toEqual([...SUGGEST_TYPES]);
    expect(parameter('/suggest', 'limit').schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 20 });
  });

  it('browse: search, country, limit and offset within the 10,000 window', () => {
    expect(BrandsQuery.parse({ search: ' dior ', country: 'fr', limit: '50', offset: '10' })).toEqual({
      search: 'dior',
      country: 'FR',
      limit: 50,
      offset: 10,
    });
    expect(issues(BrandsQuery, { country: 'FRA' })[0]).toMatch(/^country: /);
    expect(issues(TermsQuery, { offset: '9990', limit: '20' })[0]).toMatch(/^offset: offset \+ limit/);
    expect(issues(TermsQuery, { country: 'FR' })[0]).toMatch(/country/);
    for (const path of ['/brands', '/notes', '/accords', '/perfumers']) {
      expect(parameter(path, 'limit').schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
      expect(parameter(path, 'offset').schema).toMatchObject({ type: 'integer', minimum: 0, maximum: 9999 });
    }
  });

  it('slugs: folded names with hyphens, and the path accepts exactly those', () => {
    for (const name of ['Hermès', 'Maison Francis Kurkdjian', "L'Artisan Parfumeur", 'Øresund & Co.', '資生堂']) {
      const slug = slugOf(name);
      expect(keyOfSlug(slug)).toBe(foldKey(name));
      expect(BrandSlugParams.safeParse({ slug }).success, slug).toBe(true);
    }
    expect(slugOf("L'Artisan Parfumeur")).toBe('l-artisan-parfumeur');
    for (const bad of ['Hermes', 'a--b', '-a', 'a b', 'a_b', '']) expect(BrandSlugParams.safeParse({ slug: bad }).success, bad).toBe(false);
  });
});
