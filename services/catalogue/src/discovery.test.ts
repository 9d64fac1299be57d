import { describe, expect } from 'vitest';
import {
  BrandDetail,
  BrandList,
  foldKey,
  Problem,
  SearchResponse,
  SuggestResponse,
  TermList,
  type FragranceDetail,
} from '@fragrance/contracts';
import { generateCatalogue } from '@fragrance/dataset';
import { ingestCatalogue } from '@fragrance/search';
import { makeRecord } from '@fragrance/search/testing';
import { catalogueTest, startCatalogueApp } from './testing/app.ts';

const shiseido = makeRecord({ name: 'Zen', brand: '資生堂', country: 'JP', votes: 700, perfumers: ['Hélène Doré'] });
const records: FragranceDetail[] = [...generateCatalogue({ count: 400, seed: 33 }), shiseido];

/** The file's catalogue (its records in the file's own index) answering `get`; `problem` expects a problem+json. */
const it = catalogueTest
  .extend('get', { scope: 'file' }, async ({ es }, { onCleanup }) => {
    const alias = es.index('fragrances');
    await ingestCatalogue({ client: es.client, alias, records });
    const app = await startCatalogueApp({ elasticsearch: es.client }, { CATALOGUE_ALIAS: alias });
    onCleanup(() => app.close());
    return async (path: string, init: RequestInit = {}) => {
      const res = await fetch(app.url + path, init);
      const text = await res.text();
      return { status: res.status, type: res.headers.get('content-type'), body: text ? (JSON.parse(text) as unknown) : undefined };
    };
  })
  .extend('problem', { scope: 'file' }, ({ get }) => async (path: string, status = 400) => {
    const res = await get(path);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.type).toMatch(/^application\/problem\+json/);
    return Problem.parse(res.body);
  });

describe('discovery routes', () => {
  const named = (p: Problem) => (p.invalid_params ?? []).map((i) => i.name).sort();

  it('GET /v1/suggest: prefix, typo and accents, non-Latin names', async ({ get }) => {
    for (const q of ['helene do', 'HÉLÈNE DORE', 'helen dore']) {
      const res = await get(`/v1/suggest?q=${encodeURIComponent(q)}&types=perfumer`);
      expect(res.status).toBe(200);
      expect(SuggestResponse.parse(res.body).data[0], q).toEqual({ type: 'perfumer', text: 'Hélène Doré', slug: 'helene-dore', count: 1 });
    }
    const jp = SuggestResponse.parse((await get(`/v1/suggest?q=${encodeURIComponent('資生')}`)).body);
    expect(jp.data).toContainEqual({ type: 'brand', text: '資生堂', slug: '資生堂', count: 1 });
    expect(jp.data).toContainEqual({ type: 'fragrance', text: 'Zen', brand: '資生堂', id: shiseido.id });
  });

  it('GET /v1/brands, /v1/brands/{slug}, /v1/notes, /v1/accords, /v1/perfumers', async ({ get }) => {
    const brands = BrandList.parse((await get('/v1/brands?country=jp')).body);
    expect(brands.total).toBe(new Set(records.filter((r) => r.country === 'JP').map((r) => foldKey(r.brand))).size);
    const slug = encodeURIComponent('資生堂');
    const detail = BrandDetail.parse((await get(`/v1/brands/${slug}`)).body);
    expect(detail).toMatchObject({ name: '資生堂', country: 'JP', fragrance_count: 1, votes: 700, perfumers: ['Hélène Doré'] });
    for (const kind of ['notes', 'accords', 'perfumers']) {
      const page = TermList.parse((await get(`/v1/${kind}?limit=5&offset=1`)).body);
      expect(page).toMatchObject({ limit: 5, offset: 1 });
      expect(page.data).toHaveLength(5);
    }
  });

  it('answers every bad input with problem+json naming it', async ({ problem, get }) => {
    expect(named(await problem('/v1/suggest'))).toEqual(['q']);
    expect(named(await problem('/v1/suggest?q=a&types=colour&limit=0'))).toEqual(['limit', 'types']);
    expect(named(await problem('/v1/suggest?q=a&q=b'))).toEqual(['q']);
    expect(named(await problem('/v1/brands?country=FRA&colour=red'))).toEqual(['colour', 'country']);
    expect(named(await problem('/v1/notes?offset=9999&limit=2'))).toEqual(['offset']);
    expect(named(await problem('/v1/brands/Not_A_Slug'))).toEqual(['slug']);
    expect(named(await problem('/v1/brands/hermes?x=1'))).toEqual(['x']);
    expect((await problem('/v1/brands/no-such-brand', 404)).code).toBe('not_found');
    expect(named(await problem('/v1/fragrances?rating_min=6&votes_min=x&season=monsoon&occasion=&highlight=1'))).toEqual([
      'highlight',
      'occasion',
      'rating_min',
      'season',
      'votes_min',
    ]);
    const post = await get('/v1/brands', { method: 'POST' });
    expect(post.status).toBe(405);
  });

  it('GET /v1/fragrances relaxed: the looser answer says what it dropped, in the contract and the OpenAPI document', async ({ get }) => {
    const page = SearchResponse.parse((await get(`/v1/fragrances?query=${encodeURIComponent('Zen Shiseido zqxwv for men')}`)).body);
    expect(page.data[0]?.id).toBe(shiseido.id);
    expect(page.relaxed).toEqual({ dropped: ['shiseido', 'zqxwv', 'for', 'men'] });
    const openapi = (await get('/v1/openapi.json')).body as {
      components: { schemas: Record<string, { properties?: Record<string, { $ref?: string; type?: string; items?: unknown }> }> };
    };
    expect(openapi.components.schemas.SearchResponse?.properties?.relaxed?.$ref).toBe('#/components/schemas/Relaxed');
    expect(openapi.components.schemas.Relaxed?.properties?.dropped).toMatchObject({ type: 'array', items: { type: 'string' } });
  });

  it('GET /v1/fragrances with highlight and did_you_mean validates against the contract', async ({ get }) => {
    const page = SearchResponse.parse((await get(`/v1/fragrances?query=${encodeURIComponent('helene')}&highlight=true`)).body);
    expect(page.data[0]?.highlight?.perfumers).toEqual([{ text: 'Hélène Doré', matches: [{ start: 0, end: 6 }] }]);
  });
});
