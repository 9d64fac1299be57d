import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  foldKey,
  SearchQuery,
  SEMANTIC_WINDOW,
  type FragranceDetail,
  type SearchQueryInput,
  type SearchResponse,
} from '@fragrance/contracts';
import { generateCatalogue } from '@fragrance/dataset';
import { defaultModelDirectory, loadEmbedder, type Embedder } from '@fragrance/embeddings';
import { testElasticsearch, type TestElasticsearch } from '@fragrance/testkit';
import { createCatalogueRepository, type CatalogueRepository } from './catalogue.ts';
import { ingestCatalogue } from './ingest.ts';
import { createCursorCodec } from './cursor.ts';
import { queryKey } from './normalise.ts';
import { attributeQuery, buildSearchQuery, describedAttributes } from './query.ts';
import { fuseByRank } from './semantic.ts';
import { makeRecord, writeRecordVectors } from './testing.ts';

const smoky = {
  ...makeRecord({
    // A fixed id, so every run ranks the same: how records that fit equally are ordered depends on their ids.
    id: '5f1c2a3e-9b7d-4e2a-8c61-0d3f4b5a6c7e',
    name: 'Smoky Winter Evening',
    brand: 'Quillon Atelier',
    votes: 3,
    accords: ['smoky', 'leather', 'woody'],
    notes: { top: ['pink pepper'], heart: ['birch tar'], base: ['vetiver', 'vanilla'] },
  }),
  seasons: ['winter' as const],
  occasions: ['evening' as const],
};
const records: FragranceDetail[] = [...generateCatalogue({ count: 220, seed: 31 }), smoky];
const byId = new Map(records.map((r) => [r.id, r]));

describe('search modes (semantic, hybrid) over record vectors', () => {
  let es: TestElasticsearch;
  let embedder: Embedder;
  let alias: string;
  let bare: string;
  let repository: CatalogueRepository;
  const cursorKeys = { current: randomBytes(32).toString('base64url') };
  const search = (repo: CatalogueRepository, input: SearchQueryInput): Promise<SearchResponse> => repo.search(SearchQuery.parse(input));

  beforeAll(async () => {
    es = await testElasticsearch('semantic');
    embedder = await loadEmbedder({ directory: defaultModelDirectory() });
    alias = es.index('vectors');
    bare = es.index('novectors');
    await ingestCatalogue({ client: es.client, alias, records });
    await ingestCatalogue({ client: es.client, alias: bare, records });
    await writeRecordVectors({ client: es.client, index: alias, records, embedder });
    repository = createCatalogueRepository({ client: es.client, alias, cursorKeys, embedder });
  }, 120_000);
  afterAll(async () => {
    await embedder.close();
    await es.cleanup();
  });

  it('semantic finds records by description where lexical finds nothing', async () => {
    const query = 'a smoky fragrance for winter evenings';
    // Every word together matches nothing lexically: lexical mode relaxes the query.
    const lexical = await search(repository, { query, search_mode: 'lexical' });
    expect(lexical.relaxed?.dropped.length).toBeGreaterThan(0);
    const semantic = await search(repository, { query, search_mode: 'semantic', limit: '10' });
    expect(semantic.search_mode).toBe('semantic');
    expect(semantic.data.length).toBe(10);
    expect(semantic.data.map((d) => d.id)).toContain(smoky.id);
    const fitting = semantic.data.filter((d) => {
      const r = byId.get(d.id)!;
      return r.accords.includes('smoky') || r.seasons.includes('winter') || r.occasions.includes('evening');
    });
    expect(fitting.length).toBeGreaterThanOrEqual(5);
  });

  it.each(['semantic', 'hybrid'] as const)('every %s hit satisfies the filters (applied inside the kNN search)', async (mode) => {
    const sample = records[0]!;
    const filters: SearchQueryInput[] = [
      { concentration: 'Eau de Toilette' },
      { brand: sample.brand },
      { year_from: '2000', year_to: '2010', exclude_accord: 'woody' },
      { season: 'summer', accord: 'citrus' },
    ];
    for (const filter of filters) {
      const page = await search(repository, { query: 'fresh citrus for summer at the office', search_mode: mode, limit: '50', ...filter });
      expect(page.search_mode).toBe(mode);
      const lexicalTotal = (await search(repository, { ...filter, limit: '1' })).total;
      // The kNN leg keeps only records above its similarity floor.
      expect(page.data.length).toBeGreaterThan(0);
      expect(page.data.length).toBeLessThanOrEqual(Math.min(50, lexicalTotal));
      for (const hit of page.data) {
        const r = byId.get(hit.id)!;
        if (filter.concentration) expect(r.concentration).toBe(filter.concentration);
        if (filter.brand) expect(foldKey(r.brand)).toBe(foldKey(filter.brand));
        if (filter.year_from) expect(r.year_released).toBeGreaterThanOrEqual(2000);
        if (filter.year_to) expect(r.year_released).toBeLessThanOrEqual(2010);
        if (filter.exclude_accord) expect(r.accords.map(foldKey)).not.toContain('woody');
        if (filter.season) expect(r.seasons).toContain('summer');
        if (filter.accord) expect(r.accords.map(foldKey)).toContain('citrus');
      }
    }
  });

  it('hybrid answers a description lexical cannot match from its attribute and kNN legs, total counting them', async () => {
    const query = 'a smoky fragrance for winter evenings';
    const hybrid = await search(repository, { query, search_mode: 'hybrid', limit: '10' });
    expect(hybrid.search_mode).toBe('hybrid');
    // The attribute leg matches the records with the accord named (smoky), the kNN leg the
    // nearest: all counted.
    const described = records.filter((r) => r.accords.includes('smoky'));
    expect(described.length).toBeGreaterThanOrEqual(1);
    expect(hybrid.total).toBeGreaterThanOrEqual(described.length);
    const fitting = (id: string) => {
      const r = byId.get(id)!;
      return [r.accords.includes('smoky'), r.seasons.includes('winter'), r.occasions.includes('evening')].filter(Boolean).length;
    };
    // Fused from both legs: the first hits fit at least two of the three things asked for.
    for (const hit of hybrid.data) expect(fitting(hit.id)).toBeGreaterThanOrEqual(2);
    // The hand-made record fits all three, as do 36 generated ones (most with more votes): where
    // it falls among equals is no measure, but it is on the first page of 50.
    const firstPage = await search(repository, { query, search_mode: 'hybrid', limit: '50' });
    expect(firstPage.data.map((d) => d.id)).toContain(smoky.id);
  });

  it("the attribute leg keeps to the records with the description's accord, or else to its seasons and occasions", async () => {
    const matched = async (query: string) => {
      const params = SearchQuery.parse({ query, search_mode: 'hybrid' });
      const attributes = attributeQuery(queryKey(query), params)!;
      const response = await es.client.search<FragranceDetail>({ index: alias, query: attributes.matches, size: 1000, _source: ['id'] });
      return response.hits.hits.map((hit) => byId.get(hit._source!.id)!);
    };
    // An accord word (misspelt, as shoppers do) is required: winter evening records without it are not matched.
    const smokey = await matched('a smokey fragrance for winter evenings');
    expect(smokey.map((r) => r.id)).toContain(smoky.id);
    for (const r of smokey) expect(r.accords).toContain('smoky');
    expect(records.filter((r) => r.seasons.includes('winter') && !r.accords.includes('smoky')).length).toBeGreaterThan(0);
    // No accord named ("something", "fragrance" describe nothing): the seasons and occasions alone.
    const plain = await matched('something for winter evenings');
    expect(plain.length).toBe(records.filter((r) => r.seasons.includes('winter') || r.occasions.includes('evening')).length);
  });

  it('hybrid total is exactly the union of lexical matches, attribute matches and the nearest records', async () => {
    const cases: SearchQueryInput[] = [
      { query: 'a smoky fragrance for winter evenings' },
      { query: 'smoky winter evening' },
      { query: 'woody' },
      { query: 'fresh citrus for summer at the office', concentration: 'Eau de Toilette' },
      // More lexical and attribute matches than a leg's window: those legs are counted by their queries.
      { query: 'eau' },
      { query: 'something for spring summer autumn or winter' },
    ];
    const cutAtWindow = { lexical: 0, attributes: 0 };
    for (const input of cases) {
      const params = SearchQuery.parse({ ...input, search_mode: 'hybrid' });
      const key = queryKey(params.query!);
      const hybrid = await search(repository, { ...input, search_mode: 'hybrid', facets: 'season' });
      expect(hybrid.search_mode).toBe('hybrid');
      // Without facets, legs that found fewer than their window are counted from their ids alone.
      const withoutFacets = await search(repository, { ...input, search_mode: 'hybrid' });
      expect(withoutFacets.total).toBe(hybrid.total);
      expect(withoutFacets.data).toEqual(hybrid.data);
      const nearest = await search(repository, { ...input, search_mode: 'semantic', limit: String(SEMANTIC_WINDOW) });
      // Counted independently: one count of the three sets (what a fourth search used to do).
      // A relaxed query's lexical leg matched the words kept.
      const kept = key
        .split(' ')
        .filter((word) => !hybrid.relaxed?.dropped.includes(word))
        .join(' ');
      const lexical = buildSearchQuery({ ...params, search_mode: 'lexical' }, createCursorCodec(cursorKeys), kept).body.query!;
      const attributes = attributeQuery(key, params);
      const { count } = await es.client.count({
        index: alias,
        query: {
          bool: {
            should: [lexical, ...(attributes ? [attributes.matches] : []), { ids: { values: nearest.data.map((d) => d.id) } }],
            minimum_should_match: 1,
          },
        },
      });
      expect({ input, total: hybrid.total, relaxed: hybrid.relaxed }).toEqual({ input, total: count, relaxed: hybrid.relaxed });
      const lexicalCount = (await es.client.count({ index: alias, query: lexical })).count;
      if (lexicalCount >= SEMANTIC_WINDOW) cutAtWindow.lexical++;
      if (attributes && (await es.client.count({ index: alias, query: attributes.matches })).count >= SEMANTIC_WINDOW)
        cutAtWindow.attributes++;
      // Facets count the same set: every record has at most 4 seasons, so each bucket ≤ total.
      for (const bucket of hybrid.facets?.season ?? []) expect(bucket.count).toBeLessThanOrEqual(count);
      expect(hybrid.facets?.season?.length).toBeGreaterThan(0);
    }
    // Both ways of counting a leg's part ran: from its query (cut at the window) and from its ids.
    expect(cutAtWindow.lexical).toBeGreaterThan(0);
    expect(cutAtWindow.attributes).toBeGreaterThan(0);
  });

  it('hybrid keeps an exact name first, and known items as lexical ranks them', async () => {
    const page = await search(repository, { query: 'smoky winter evening', search_mode: 'hybrid' });
    expect(page.search_mode).toBe('hybrid');
    expect(page.data[0]?.id).toBe(smoky.id);
    for (const r of records.slice(0, 8)) {
      const query = `${r.name} ${r.brand}`;
      const [hybrid, lexical] = await Promise.all([
        search(repository, { query, search_mode: 'hybrid', limit: '3' }),
        search(repository, { query, search_mode: 'lexical', limit: '3' }),
      ]);
      expect(hybrid.data[0]?.id).toBe(lexical.data[0]?.id);
    }
  });

  it('pages semantic and hybrid results by cursor without duplicates, up to the window, with facets and total', async () => {
    for (const mode of ['semantic', 'hybrid'] as const) {
      const seen: string[] = [];
      let cursor: string | undefined;
      let first: SearchResponse | undefined;
      do {
        const page = await search(repository, {
          query: 'sweet vanilla',
          search_mode: mode,
          limit: '30',
          facets: 'accord',
          ...(cursor ? { cursor } : {}),
        });
        first ??= page;
        seen.push(...page.data.map((d) => d.id));
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.length).toBeGreaterThanOrEqual(SEMANTIC_WINDOW);
      expect(first.total).toBeGreaterThanOrEqual(SEMANTIC_WINDOW);
      if (mode === 'semantic') expect(first.total).toBe(SEMANTIC_WINDOW);
      const accords = first.facets?.accord ?? [];
      expect(accords.length).toBeGreaterThan(0);
      expect(accords.reduce((n, b) => Math.max(n, b.count), 0)).toBeLessThanOrEqual(first.total);
    }
    expect(() => SearchQuery.parse({ query: 'x', search_mode: 'semantic', offset: '95', limit: '10' })).toThrow(/must not exceed 100/);
  });

  it('answers a query naming a known item lexically in the default mode, without embedding it', async () => {
    let embedded = 0;
    const counting = {
      modelKey: embedder.modelKey,
      embed: (texts: readonly string[]) => ((embedded += texts.length), embedder.embed(texts)),
    };
    const repo = createCatalogueRepository({ client: es.client, alias, cursorKeys, embedder: counting });
    for (const r of records.slice(0, 5)) {
      const page = await search(repo, { query: `${r.brand} ${r.name}` });
      expect(page.search_mode).toBe('lexical');
      expect(page.data[0]?.id).toBe(r.id);
      // Deeper pages decide on the query's best hit too.
      expect((await search(repo, { query: `${r.brand} ${r.name}`, offset: '1', limit: '1' })).search_mode).toBe('lexical');
    }
    // A name with a word that has synonyms (oud, santal, vetiver …) is still a known item.
    const synonymous = records.find((r) => /^(oud|santal|vetiver|patchouli|labdanum|tonka) /i.test(r.name))!;
    expect((await search(repo, { query: `${synonymous.name} ${synonymous.brand}` })).search_mode).toBe('lexical');
    // A name made of words that describe ("Smoky Winter Evening") is still a name.
    const named = await search(repo, { query: 'smoky winter evening' });
    expect(named).toMatchObject({ search_mode: 'lexical', data: [expect.objectContaining({ id: smoky.id })] });
    expect(embedded).toBe(0);
    // Asked for by name, hybrid runs.
    expect((await search(repo, { query: records[0]!.name, search_mode: 'hybrid' })).search_mode).toBe('hybrid');
    const description = await search(repo, { query: 'a smoky fragrance for winter evenings' });
    expect(description.search_mode).toBe('hybrid');
    expect(embedded).toBeGreaterThan(0);
    // A repeated text is embedded once.
    const before = embedded;
    await search(repo, { query: 'a smoky fragrance for winter evenings', limit: '5' });
    expect(embedded).toBe(before);
  });

  it('behaves like a search box in the default mode: no neighbours for gibberish, a respelling for a misspelt name', async () => {
    const gibberish = await search(repository, { query: 'xqzv blorp' });
    expect(gibberish.total).toBe(0);
    expect(gibberish.data).toEqual([]);
    // Two words of a brand, each two edits away ("maisn vaurarra"): lexical finds nothing and respells it.
    const brand = records.map((record) => record.brand.toLowerCase()).find((b) => /^[a-z]{6,} [a-z]{6,}$/.test(b))!;
    const misspelt = brand
      .split(' ')
      .map((word) => `${word.slice(0, 2)}${word.slice(3, -1)}x`)
      .join(' ');
    const lexical = await search(repository, { query: misspelt, search_mode: 'lexical' });
    expect(lexical.did_you_mean?.query).toBe(brand);
    for (const mode of [undefined, 'hybrid', 'semantic'] as const) {
      const page = await search(repository, { query: misspelt, ...(mode ? { search_mode: mode } : {}) });
      expect(page.did_you_mean, `mode ${mode ?? 'default'}`).toEqual(lexical.did_you_mean);
    }
  });

  it('answers lexically while the records have no vectors yet', async () => {
    const noVectors = createCatalogueRepository({ client: es.client, alias: bare, cursorKeys, embedder });
    const lexicalRepo = createCatalogueRepository({ client: es.client, alias: bare, cursorKeys });
    const sample = records[5]!;
    for (const mode of [undefined, 'hybrid', 'semantic'] as const) {
      const page = await search(noVectors, { query: sample.name, ...(mode ? { search_mode: mode } : {}) });
      expect(page.search_mode).toBe('lexical');
      expect(page).toEqual(await search(lexicalRepo, { query: sample.name, search_mode: 'lexical' }));
    }
    const description = await search(noVectors, { query: 'a smoky fragrance for winter evenings', search_mode: 'hybrid' });
    expect(description.search_mode).toBe('lexical');
    expect(description.relaxed?.dropped.length).toBeGreaterThan(0);
  });
});

describe('reciprocal rank fusion', () => {
  it('ranks by the sum of 1/(k + rank) over the lists', () => {
    expect(
      fuseByRank([
        ['a', 'b', 'c'],
        ['c', 'd', 'a'],
      ]),
    ).toEqual(['a', 'c', 'b', 'd']);
    expect(fuseByRank([['x'], []])).toEqual(['x']);
  });
});

describe('seasons and occasions named in a query (the attribute leg of hybrid)', () => {
  it('reads them as shoppers say them, the longest phrase first, and keeps the other words', () => {
    expect(describedAttributes('a smoky fragrance for winter for evenings')).toEqual({
      seasons: ['winter'],
      occasions: ['evening'],
      rest: ['a', 'smoky', 'fragrance', 'for', 'for'],
    });
    expect(describedAttributes('something fruity for hot summer days for a romantic date')).toEqual({
      seasons: ['summer'],
      occasions: ['date night'],
      rest: ['something', 'fruity', 'for', 'for', 'a'],
    });
    expect(describedAttributes('citrus for date night at the office in fall')).toEqual({
      seasons: ['autumn'],
      occasions: ['date night', 'office'],
      rest: ['citrus', 'for', 'at', 'in'],
    });
    expect(describedAttributes('terre d hermes')).toEqual({ seasons: [], occasions: [], rest: ['terre', 'd', 'hermes'] });
  });
});
