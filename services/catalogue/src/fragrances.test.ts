import { randomBytes } from 'node:crypto';
import { Client } from '@elastic/elasticsearch';
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { foldKey, FragranceSummary, Problem, SearchResponse, type FragranceDetail } from '@fragrance/contracts';
import { generateCatalogue } from '@fragrance/dataset';
import { ingestCatalogue } from '@fragrance/search';
import { makeRecord } from '@fragrance/search/testing';
import { catalogueTest, startCatalogueApp } from './testing/app.ts';

const terre = makeRecord({
  name: "Terre d'Hermès",
  brand: 'Hermès',
  country: 'FR',
  concentration: 'Eau de Toilette',
  year_released: 2006,
  votes: 9000,
});
/** This run's cursor signing key; the file's app has it, a test's own apps only if they ask. */
const TEST_CURSOR_SECRET = randomBytes(32).toString('base64url');
const records: FragranceDetail[] = [...generateCatalogue({ count: 800, seed: 21 }), terre];
const notesOf = (r: FragranceDetail) => [...r.notes.top, ...r.notes.heart, ...r.notes.base].map(foldKey);
const names = (p: Problem) => (p.invalid_params ?? []).map((i) => i.name).sort();

/** Requests to the catalogue app at `base`, with the checks most tests make on the answers. */
function catalogueApi(base: string) {
  async function get(path: string, headers: Record<string, string> = {}) {
    const res = await fetch(base + path, { headers });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as unknown) : undefined };
  }
  async function search(query: string) {
    const res = await get(`/v1/fragrances?${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return SearchResponse.parse(res.body);
  }
  async function problem(path: string, status = 400) {
    const res = await get(path);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    return Problem.parse(res.body);
  }
  /** Every hit of a search, through the cursor. */
  async function all(query: string): Promise<FragranceSummary[]> {
    const out: FragranceSummary[] = [];
    let page = await search(`${query}&limit=100`);
    out.push(...page.data);
    while (page.next_cursor) {
      page = await search(`${query}&limit=100&cursor=${page.next_cursor}`);
      out.push(...page.data);
    }
    return out;
  }
  return { base, get, search, problem, all };
}
type CatalogueApi = ReturnType<typeof catalogueApi>;

/** `alias`: the file's catalogue (`records`) in its Elasticsearch; `api`: one app serving it for the whole file. */
const test = catalogueTest
  .extend('alias', { scope: 'file' }, async ({ es }) => {
    const alias = es.index('fragrances');
    await ingestCatalogue({ client: es.client, alias, records });
    return alias;
  })
  .extend('api', { scope: 'file' }, async ({ es, alias }, { onCleanup }) => {
    const app = await startCatalogueApp(
      { elasticsearch: es.client },
      { ELASTICSEARCH_URL: es.url, CATALOGUE_ALIAS: alias, CURSOR_SECRET: TEST_CURSOR_SECRET },
    );
    onCleanup(() => app.close());
    return catalogueApi(app.url);
  });

describe('catalogue routes', () => {
  describe('GET /v1/fragrances', () => {
    test('defaults to 20 summaries of the whole catalogue, most popular first', async ({ api }) => {
      const page = await api.search('');
      expect(page).toMatchObject({ total: records.length, limit: 20, offset: 0 });
      expect(page.data).toHaveLength(20);
      const byId = new Map(records.map((r) => [r.id, r]));
      // Every summary field; `gender` only where the record has one (it is optional).
      for (const item of page.data) {
        const fields = Object.keys(FragranceSummary.shape).filter((f) => f !== 'gender' || byId.get(item.id)?.gender !== undefined);
        expect(Object.keys(item).sort()).toEqual(fields.sort());
      }
      expect(page.data.some((item) => item.gender !== undefined)).toBe(true);
      const votes = page.data.map((d) => d.rating.count);
      expect(votes).toEqual([...votes].sort((a, b) => b - a));
      expect(page.next_cursor).toEqual(expect.any(String));
    });

    test('query: full text, folded', async ({ api }) => {
      expect((await api.search('query=TERRE%20D%20HERMES')).data[0]?.id).toBe(terre.id);
      expect((await api.search('query=')).total).toBe(records.length);
    });

    test('brand: exact, case- and accent-insensitive', async ({ api }) => {
      const brand = records.find((r) => foldKey(r.brand) !== r.brand.toLowerCase())?.brand ?? 'Hermès';
      const expected = records.filter((r) => foldKey(r.brand) === foldKey(brand)).length;
      const page = await api.search(`brand=${encodeURIComponent(foldKey(brand).toUpperCase())}`);
      expect(page.total).toBe(expected);
      expect(page.data.every((d) => d.brand === brand)).toBe(true);
      expect((await api.search(`brand=${encodeURIComponent(brand.slice(0, 4))}`)).total).toBe(0);
    });

    test.for([
      ['edt', 'Eau de Toilette'],
      ['EdP', 'Eau de Parfum'],
      ['EXTRAIT', 'Extrait de Parfum'],
      ['eau%20de%20cologne', 'Eau de Cologne'],
    ])('concentration=%s means %s', async ([param, canonical], { api }) => {
      const page = await api.search(`concentration=${param}&limit=100`);
      expect(page.total).toBe(records.filter((r) => r.concentration === canonical).length);
      expect(page.data.every((d) => d.concentration === canonical)).toBe(true);
    });

    test('country: ISO alpha-2, case-insensitive', async ({ api }) => {
      const page = await api.search('country=fr&limit=100');
      expect(page.total).toBe(records.filter((r) => r.country === 'FR').length);
      expect(page.total).toBeGreaterThan(0);
      expect(page.data.every((d) => d.country === 'FR')).toBe(true);
    });

    test('year_from and year_to are inclusive, alone and together', async ({ api }) => {
      const year = terre.year_released ?? 2006;
      const count = (pred: (y: number) => boolean) => records.filter((r) => r.year_released !== null && pred(r.year_released)).length;
      expect((await api.search(`year_from=${year}&year_to=${year}`)).total).toBe(count((y) => y === year));
      expect((await api.search(`year_from=${year}`)).total).toBe(count((y) => y >= year));
      expect((await api.search(`year_to=${year}`)).total).toBe(count((y) => y <= year));
      const hits = await api.all(`year_from=${year}&year_to=${year + 1}`);
      expect(hits.every((d) => d.year_released === year || d.year_released === year + 1)).toBe(true);
    });

    test('note, accord and their exclusions (comma lists, all must match / none may)', async ({ api }) => {
      const note = notesOf(terre)[0] ?? 'bergamot';
      const accord = records[0]?.accords[0] ?? 'woody';
      const other = records[0]?.accords[1] ?? 'citrus';
      const expectIds = (pred: (r: FragranceDetail) => boolean) =>
        records
          .filter(pred)
          .map((r) => r.id)
          .sort();
      const got = async (q: string) => {
        const ids = (await api.all(q)).map((d) => d.id).sort();
        expect(ids.length, q).toBeGreaterThan(0);
        return ids;
      };
      expect(await got(`note=${encodeURIComponent(note.toUpperCase())}`)).toEqual(expectIds((r) => notesOf(r).includes(note)));
      expect(await got(`accord=${encodeURIComponent(`${accord},${other}`)}`)).toEqual(
        expectIds((r) => r.accords.map(foldKey).includes(foldKey(accord)) && r.accords.map(foldKey).includes(foldKey(other))),
      );
      expect(
        await got(
          `accord=${encodeURIComponent(accord)}&exclude_note=${encodeURIComponent(note)}&exclude_accord=${encodeURIComponent(other)}`,
        ),
      ).toEqual(
        expectIds(
          (r) =>
            r.accords.map(foldKey).includes(foldKey(accord)) &&
            !notesOf(r).includes(note) &&
            !r.accords.map(foldKey).includes(foldKey(other)),
        ),
      );
    });

    test('available_in_au filters on AU availability', async ({ api }) => {
      expect((await api.search('available_in_au=true')).total).toBe(records.filter((r) => r.available_in_au).length);
      expect((await api.search('available_in_au=false')).total).toBe(records.filter((r) => !r.available_in_au).length);
    });

    test('combines every filter with AND', async ({ api }) => {
      const pred = (r: FragranceDetail) =>
        foldKey(r.brand) === 'hermes' &&
        r.concentration === 'Eau de Toilette' &&
        r.country === 'FR' &&
        r.year_released !== null &&
        r.year_released >= 2000 &&
        r.year_released <= 2010;
      const page = await api.search('query=terre&brand=hermes&concentration=EDT&country=FR&year_from=2000&year_to=2010&limit=5&offset=0');
      expect(page.data.map((d) => d.id)).toEqual(records.filter(pred).map((r) => r.id));
      expect(page.data.length).toBeGreaterThan(0);
      const noText = await api.search('brand=hermes&concentration=EDT&country=fr&year_from=2000&year_to=2010');
      expect(noText.total).toBe(records.filter(pred).length);
    });

    test('returns facet counts on request', async ({ api }) => {
      const page = await api.search('facets=brand,concentration,accord,decade&limit=1');
      const facets = page.facets ?? {};
      const eaux = records.filter((r) => r.concentration === 'Eau de Parfum').length;
      expect(facets.concentration?.find((b) => b.value === 'Eau de Parfum')?.count).toBe(eaux);
      const topBrand = facets.brand?.[0];
      expect(topBrand?.count).toBe(records.filter((r) => r.brand === topBrand?.value).length);
      const decades = facets.decade ?? [];
      expect(decades.reduce((n, b) => n + b.count, 0)).toBe(records.filter((r) => r.year_released !== null).length);
      expect(decades.every((b) => /^\d{4}s$/.test(b.value))).toBe(true);
      expect(facets.accord?.length).toBeGreaterThan(0);
      expect((await api.search('limit=1')).facets).toBeUndefined();
    });

    test('limit and offset edges', async ({ api }) => {
      expect((await api.search('limit=1')).data).toHaveLength(1);
      expect((await api.search('limit=100')).data).toHaveLength(100);
      expect(names(await api.problem('/v1/fragrances?limit=0'))).toEqual(['limit']);
      expect(names(await api.problem('/v1/fragrances?limit=101'))).toEqual(['limit']);
      expect(names(await api.problem('/v1/fragrances?offset=-1'))).toEqual(['offset']);
      const past = await api.search(`offset=${records.length + 5}`);
      expect(past).toMatchObject({ total: records.length, data: [], next_cursor: null });
      const last = await api.search(`offset=${records.length - 1}&limit=5`);
      expect(last.data).toHaveLength(1);
      expect(last.next_cursor).toBeNull();
      expect((await api.search('offset=9980&limit=20')).data).toEqual([]);
      const window = await api.problem('/v1/fragrances?offset=9981&limit=20');
      expect(window.invalid_params?.[0]?.reason).toMatch(/cursor/);
    });

    test('pages through every hit with the cursor, each once', async ({ api }) => {
      const hits = await api.all('concentration=edp');
      const ids = hits.map((d) => d.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.sort()).toEqual(
        records
          .filter((r) => r.concentration === 'Eau de Parfum')
          .map((r) => r.id)
          .sort(),
      );
      const first = await api.search('concentration=edp&limit=3');
      expect(names(await api.problem(`/v1/fragrances?concentration=edt&cursor=${first.next_cursor}`))).toEqual(['cursor']);
      expect(names(await api.problem(`/v1/fragrances?concentration=edp&cursor=${first.next_cursor}&offset=3`))).toEqual(['offset']);
      expect(names(await api.problem('/v1/fragrances?cursor=Zm9v'))).toEqual(['cursor']);
    });

    describe('cursor integrity', () => {
      /** The JSON a cursor carries, and whatever follows it (the signature), to re-assemble an edited one. */
      const open = (cursor: string) => {
        const [payload = '', ...rest] = cursor.split('.');
        return { json: JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>, rest };
      };
      const seal = (json: unknown, rest: string[]) => [Buffer.from(JSON.stringify(json)).toString('base64url'), ...rest].join('.');
      async function invalidCursor(api: CatalogueApi, query: string, cursor: string) {
        const p = await api.problem(`/v1/fragrances?${query}&cursor=${encodeURIComponent(cursor)}`);
        expect(p.code, cursor).toBe('invalid_cursor');
        expect(names(p)).toEqual(['cursor']);
        return p;
      }

      test('answers 400 invalid_cursor, never 500, for a cursor whose payload was edited', async ({ api }) => {
        const page = await api.search('query=rose&limit=5');
        const cursor = page.next_cursor ?? '';
        expect(cursor).not.toBe('');
        const { json, rest } = open(cursor);
        const after = json.a as unknown[];
        const edits: Record<string, unknown>[] = [
          { ...json, a: ['x', ...after.slice(1)] }, // a string where Elasticsearch expects the score: was a 500
          { ...json, p: 999_999 }, // was a page claiming offset 999999 of 801
          { ...json, p: -1 },
          { ...json, a: [] },
          { ...json, f: 'another-query' },
        ];
        for (const edit of edits) await invalidCursor(api, 'query=rose&limit=5', seal(edit, rest));
        // The untouched cursor still works.
        expect((await api.search(`query=rose&limit=5&cursor=${cursor}`)).offset).toBe(5);
      });

      test('answers invalid_cursor for an edited signature or garbage', async ({ api }) => {
        const cursor = (await api.search('limit=3')).next_cursor ?? '';
        const last = cursor.at(-1) === 'A' ? 'B' : 'A';
        await invalidCursor(api, 'limit=3', cursor.slice(0, -1) + last);
        await invalidCursor(api, 'limit=3', cursor.slice(0, -2));
        for (const garbage of ['Zm9v', 'not-a-cursor', 'a.b', '.', 'x'.repeat(2000), 'not a cursor!', `${cursor}.${cursor}`]) {
          await invalidCursor(api, 'limit=3', garbage);
        }
        // A cursor from another query is a cursor error too.
        const p = await invalidCursor(api, 'concentration=edt', (await api.search('concentration=edp&limit=3')).next_cursor ?? '');
        expect(p.invalid_params?.[0]?.reason).toMatch(/different query/);
      });

      test('accepts a cursor signed with CURSOR_SECRET_PREVIOUS (rotation), rejects one signed with an unknown key', async ({
        api,
        alias,
        startApp,
      }) => {
        const oldSecret = randomBytes(32).toString('base64url');
        const newSecret = randomBytes(32).toString('base64url');
        const before = await startApp({ CATALOGUE_ALIAS: alias, CURSOR_SECRET: oldSecret });
        const rotated = await startApp({ CATALOGUE_ALIAS: alias, CURSOR_SECRET: newSecret, CURSOR_SECRET_PREVIOUS: oldSecret });
        const forgotten = await startApp({ CATALOGUE_ALIAS: alias, CURSOR_SECRET: newSecret });
        const first = SearchResponse.parse(await (await fetch(`${before.url}/v1/fragrances?limit=4`)).json());
        const cursor = first.next_cursor ?? '';
        const expected = SearchResponse.parse(await (await fetch(`${before.url}/v1/fragrances?limit=4&cursor=${cursor}`)).json());
        const res = await fetch(`${rotated.url}/v1/fragrances?limit=4&cursor=${cursor}`);
        expect(res.status).toBe(200);
        const next = SearchResponse.parse(await res.json());
        expect(next.data).toEqual(expected.data);
        expect(next.offset).toBe(4);
        // New cursors are signed with the new key only.
        const newer = next.next_cursor ?? '';
        expect((await fetch(`${forgotten.url}/v1/fragrances?limit=4&cursor=${newer}`)).status).toBe(200);
        expect((await fetch(`${before.url}/v1/fragrances?limit=4&cursor=${newer}`)).status).toBe(400);
        for (const origin of [forgotten.url, api.base]) {
          const rejected = await fetch(`${origin}/v1/fragrances?limit=4&cursor=${cursor}`);
          expect(rejected.status).toBe(400);
          expect(Problem.parse(await rejected.json()).code).toBe('invalid_cursor');
        }
      });
    });

    test('rejects unknown and repeated parameters, naming them', async ({ api }) => {
      expect(names(await api.problem('/v1/fragrances?colour=red'))).toEqual(['colour']);
      expect(names(await api.problem('/v1/fragrances?limit=1&limit=2'))).toEqual(['limit']);
      expect(names(await api.problem('/v1/fragrances?note=rose&note=oud'))).toEqual(['note']);
      expect(names(await api.problem('/v1/fragrances?Query=x&brand=a&brand=b&limit=0'))).toEqual(['Query', 'brand', 'limit']);
    });

    test('rejects Object.prototype names like any unknown parameter, on every route with query parameters', async ({ api }) => {
      const routes = ['/v1/fragrances', `/v1/fragrances/${terre.id}`, `/v1/fragrances/${terre.id}/similar`];
      for (const route of routes) {
        for (const name of ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf']) {
          const p = await api.problem(`${route}?${name}=1`);
          expect(names(p), `${route}?${name}`).toEqual([name]);
          expect(p.code).toBe('invalid_parameter');
          expect(names(await api.problem(`${route}?${name}=1&${name}=2`)), `${route}?${name} twice`).toEqual([name]);
        }
        expect(names(await api.problem(`${route}?%5F%5Fproto%5F%5F=1`))).toEqual(['__proto__']);
      }
    });

    test('rejects every malformed value with a 400 naming the parameter', async ({ api }) => {
      const cases: [string, string][] = [
        ['year_from=199x', 'year_from'],
        ['year_to=2000.5', 'year_to'],
        ['year_from=2001&year_to=2000', 'year_from'],
        ['limit=abc', 'limit'],
        ['limit=1e2', 'limit'],
        ['offset=1.0', 'offset'],
        ['concentration=PDT', 'concentration'],
        ['country=FRA', 'country'],
        ['country=', 'country'],
        ['brand=', 'brand'],
        ['available_in_au=yes', 'available_in_au'],
        ['facets=colour', 'facets'],
        [`query=${'x'.repeat(201)}`, 'query'],
        [`note=${Array.from({ length: 11 }, (_, i) => `n${i}`).join(',')}`, 'note'],
      ];
      for (const [query, name] of cases) {
        const p = await api.problem(`/v1/fragrances?${query}`);
        expect(names(p), query).toEqual([name]);
        expect(p.code).toBe('invalid_parameter');
      }
    });

    test('never answers 5xx, whatever the query string', async ({ api }) => {
      const keys = fc.constantFrom(
        'query',
        'brand',
        'concentration',
        'country',
        'year_from',
        'year_to',
        'limit',
        'offset',
        'cursor',
        'note',
        'accord',
        'exclude_note',
        'facets',
        'available_in_au',
        'x',
      );
      const value = fc.oneof(
        fc.string({ maxLength: 40 }),
        fc.string({ unit: 'grapheme', maxLength: 30 }),
        fc.integer({ min: -20_000, max: 20_000 }).map(String),
        fc.constantFrom('*', '~', '"', '(', '\\', 'AND', 'OR NOT', '%', '/*', '0x1f', '1e9'),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(keys, value), { maxLength: 4 }), async (pairs) => {
          const qs = new URLSearchParams(pairs).toString();
          const res = await fetch(`${api.base}/v1/fragrances?${qs}`);
          const body = await res.text();
          expect([200, 400], `${qs} → ${res.status} ${body}`).toContain(res.status);
        }),
        { numRuns: 150 },
      );
      await fc.assert(
        fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 200 }), async (query) => {
          const res = await fetch(`${api.base}/v1/fragrances?query=${encodeURIComponent(query)}`);
          expect(res.status, query).toBe(200);
          await res.arrayBuffer();
        }),
        { numRuns: 100 },
      );
    });
  });

  describe('GET /v1/fragrances/{id}', () => {
    test('returns the full record with an ETag, and 304 for a matching If-None-Match', async ({ api }) => {
      const res = await api.get(`/v1/fragrances/${terre.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(terre);
      const etag = res.headers.get('etag') ?? '';
      expect(etag).toMatch(/^".+"$/);
      const again = await api.get(`/v1/fragrances/${terre.id.toUpperCase()}`, { 'if-none-match': `W/"other", ${etag}` });
      expect(again.status).toBe(304);
      expect(again.headers.get('etag')).toBe(etag);
      expect((await api.get(`/v1/fragrances/${terre.id}`, { 'if-none-match': '"stale"' })).status).toBe(200);
    });

    test('404 problem+json for an unknown id, 400 for a malformed one or any query parameter', async ({ api }) => {
      expect((await api.problem('/v1/fragrances/00000000-0000-4000-8000-000000000000', 404)).code).toBe('not_found');
      expect(names(await api.problem('/v1/fragrances/not-a-uuid'))).toEqual(['id']);
      expect(names(await api.problem(`/v1/fragrances/${terre.id}?x=1`))).toEqual(['x']);
      expect((await api.get('/v1/fragrances/%E0%A4%A')).status).toBe(400);
    });
  });

  describe('GET /v1/fragrances/{id}/similar', () => {
    test('returns other fragrances sharing notes or accords', async ({ api }) => {
      const res = await api.get(`/v1/fragrances/${terre.id}/similar?limit=5`);
      expect(res.status).toBe(200);
      const { data, limit } = res.body as { data: FragranceSummary[]; limit: number };
      expect(limit).toBe(5);
      expect(data).toHaveLength(5);
      expect(data.map((d) => d.id)).not.toContain(terre.id);
      const byId = new Map(records.map((r) => [r.id, r]));
      for (const item of data) {
        const r = byId.get(item.id)!;
        const shared = notesOf(r).some((n) => notesOf(terre).includes(n)) || r.accords.some((a) => terre.accords.includes(a));
        expect(shared).toBe(true);
      }
    });

    test('404 for an unknown id and 400 for a bad limit', async ({ api }) => {
      await api.problem('/v1/fragrances/00000000-0000-4000-8000-000000000000/similar', 404);
      expect(names(await api.problem(`/v1/fragrances/${terre.id}/similar?limit=51`))).toEqual(['limit']);
    });

    test('400 problem naming the parameter for each bad filter value', async ({ api }) => {
      const bad: [string, string][] = [
        ['other_brands=yes', 'other_brands'],
        ['available_in_au=1', 'available_in_au'],
        ['max_price_aud=-5', 'max_price_aud'],
        ['max_price_aud=cheap', 'max_price_aud'],
        ['concentration=perfume-ish', 'concentration'],
        ['gender=robot', 'gender'],
        ['year_from=99', 'year_from'],
        ['year_from=2020&year_to=2010', 'year_from'],
        ['exclude_flankers=maybe', 'exclude_flankers'],
        ['dupes=true', 'dupes'],
      ];
      for (const [query, param] of bad) {
        const body = await api.problem(`/v1/fragrances/${terre.id}/similar?${query}`);
        expect(body.status, query).toBe(400);
        expect(names(body), query).toEqual([param]);
      }
    });

    test('answers every alternative with closeness and reasons, and the filters apply', async ({ api }) => {
      const res = await api.get(`/v1/fragrances/${terre.id}/similar?other_brands=true&exclude_flankers=true&concentration=edp&limit=5`);
      expect(res.status).toBe(200);
      const { data } = res.body as { data: (FragranceSummary & { closeness: number; reasons: { summary: string } })[] };
      expect(data.length).toBeGreaterThan(0);
      for (const item of data) {
        expect(item.brand).not.toBe(terre.brand);
        expect(item.concentration).toBe('Eau de Parfum');
        expect(item.closeness).toBeGreaterThanOrEqual(0);
        expect(item.closeness).toBeLessThanOrEqual(1);
        expect(item.reasons.summary).toMatch(/\.$/);
      }
    });

    test('documents the filters and the reasons in the OpenAPI document', async ({ api }) => {
      const openapi = (await api.get('/v1/openapi.json')).body as {
        paths: Record<string, { get?: { parameters?: { name: string }[] } }>;
        components: {
          schemas: Record<string, { properties?: Record<string, { $ref?: string; items?: { $ref?: string } }>; required?: string[] }>;
        };
      };
      const params = openapi.paths['/fragrances/{id}/similar']?.get?.parameters?.map((p) => p.name) ?? [];
      expect(params).toEqual(
        expect.arrayContaining([
          'other_brands',
          'available_in_au',
          'max_price_aud',
          'concentration',
          'gender',
          'year_from',
          'year_to',
          'exclude_flankers',
        ]),
      );
      const schemas = openapi.components.schemas;
      expect(schemas.SimilarResponse?.properties?.data?.items?.$ref).toBe('#/components/schemas/SimilarFragrance');
      expect(schemas.SimilarFragrance?.required).toEqual(expect.arrayContaining(['closeness', 'reasons']));
      expect(schemas.SimilarFragrance?.properties?.reasons?.$ref).toBe('#/components/schemas/SimilarReasons');
      expect(Object.keys(schemas.SimilarReasons?.properties ?? {})).toEqual(
        expect.arrayContaining(['shared_notes', 'shared_main_accords', 'shared_accords', 'distinctive', 'adds', 'summary']),
      );
    });
  });

  test('answers other methods with 405 and Allow', async ({ api }) => {
    for (const [method, path] of [
      ['POST', '/v1/fragrances'],
      ['DELETE', `/v1/fragrances/${terre.id}`],
      ['PUT', `/v1/fragrances/${terre.id}/similar`],
    ] as const) {
      const res = await fetch(api.base + path, { method });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD');
      expect(Problem.parse(await res.json()).code).toBe('method_not_allowed');
    }
    expect((await fetch(`${api.base}/v1/fragrances/${terre.id}`, { method: 'HEAD' })).status).toBe(200);
  });

  test('serves the generated OpenAPI document', async ({ api }) => {
    const res = await api.get('/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ openapi: '3.1.0', paths: expect.objectContaining({ '/fragrances': expect.any(Object) }) });
  });

  test('answers 503 problem+json, not 500, when Elasticsearch is down or the alias is missing', async ({ es, startApp }) => {
    const dead = await startApp(
      { CATALOGUE_ALIAS: 'fragrances' },
      { elasticsearch: new Client({ node: 'http://127.0.0.1:1', maxRetries: 0 }) },
    );
    const missing = await startApp({ CATALOGUE_ALIAS: es.index('missing') });
    for (const origin of [dead.url, missing.url]) {
      const res = await fetch(`${origin}/v1/fragrances?query=rose`);
      expect(res.status).toBe(503);
      expect(Problem.parse(await res.json()).code).toBe('service_unavailable');
    }
  });
});
