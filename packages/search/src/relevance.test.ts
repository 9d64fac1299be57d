import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearchQuery, type FragranceDetail, type SearchQueryInput } from '@fragrance/contracts';
import { generateCatalogue } from '@fragrance/dataset';
import { testElasticsearch, type TestElasticsearch } from '@fragrance/testkit';
import { createCatalogueRepository, type CatalogueRepository } from './catalogue.ts';
import { ingestCatalogue } from './ingest.ts';
import { queryKey } from './normalise.ts';
import { attributeQuery } from './query.ts';
import { makeRecord } from './testing.ts';

const springOffice = { seasons: ['spring' as const], occasions: ['office' as const] };
const hand = {
  exact: makeRecord({ name: 'Rose', brand: 'Atelier Quiet', votes: 3, notes: { heart: ['Rose'] } }),
  partialPopular: makeRecord({ name: 'Rose Noire Absolue', brand: 'Maison Loud', votes: 40_000, accords: ['rose', 'woody'] }),
  terre: makeRecord({ name: "Terre d'Hermès", brand: 'Hermès', votes: 9_000, perfumers: ['Jean-Claude Ellena'] }),
  terreRouge: makeRecord({ name: 'Terre Rouge', brand: 'Hermès', votes: 12 }),
  twinPopular: makeRecord({ name: 'Velvet Orchidée', brand: 'Zeta', votes: 5_000 }),
  twinObscure: makeRecord({ name: 'Velvet Orchidée', brand: 'Alpha', votes: 5 }),
  cologne: makeRecord({ name: 'Grüner Schatten', brand: 'Øresund Parfums', votes: 100, notes: { top: ['Bergamot'], heart: ['Vetiver'] } }),
  // A description's accord word: the record with that accord over a more popular one whose accord only contains the word.
  floral: { ...makeRecord({ name: 'Petal Study', brand: 'Quiet Garden', votes: 20, accords: ['green', 'floral'] }), ...springOffice },
  whiteFloral: {
    ...makeRecord({ name: 'Ivory Bloom', brand: 'Loud Garden', votes: 20_000, accords: ['white floral', 'green'] }),
    ...springOffice,
  },
};

describe('relevance', () => {
  let es: TestElasticsearch;
  let repo: CatalogueRepository;
  let alias: string;
  beforeAll(async () => {
    es = await testElasticsearch('relevance');
    alias = es.index('fragrances');
    await ingestCatalogue({ client: es.client, alias, records: [...generateCatalogue({ count: 1500, seed: 5 }), ...Object.values(hand)] });
    repo = createCatalogueRepository({ client: es.client, alias, cursorKeys: { current: randomBytes(32).toString('base64url') } });
  });
  afterAll(() => es.cleanup());

  const ids = async (input: SearchQueryInput) => (await repo.search(SearchQuery.parse(input))).data.map((d) => d.id);

  it('ranks a one-word query by popularity over the names that are or start with it', async () => {
    const found = await ids({ query: 'rose' });
    expect(found[0]).toBe(hand.partialPopular.id);
    expect(found).toContain(hand.exact.id);
  });

  it('ranks a whole name of several words above more popular names containing it', async () => {
    expect((await ids({ query: 'terre rouge' }))[0]).toBe(hand.terreRouge.id);
  });

  it('lets popularity break ties between equally good matches', async () => {
    const found = await ids({ query: 'velvet orchidee' });
    expect(found.slice(0, 2)).toEqual([hand.twinPopular.id, hand.twinObscure.id]);
  });

  it.each([
    ['accents dropped', 'terre d hermes'],
    ['upper case', 'TERRE D’HERMÈS'],
    ['typo', 'tere dhermes'],
    ['prefix of the last word', 'terre d herm'],
    ['brand and name mixed', 'hermes terre'],
  ])('finds Terre d’Hermès first with %s (%s)', async (_case, query) => {
    expect((await ids({ query }))[0]).toBe(hand.terre.id);
  });

  it('matches brand, perfumer and notes, folded', async () => {
    expect(await ids({ query: 'oresund' })).toContain(hand.cologne.id);
    expect(await ids({ query: 'ellena' })).toContain(hand.terre.id);
    expect(await ids({ query: 'grüner vetiver' })).toEqual([hand.cologne.id]);
    expect(await ids({ query: 'gruner schaten' })).toEqual([hand.cologne.id]);
  });

  it("ranks a description's accord itself above accords containing its word in the attribute leg", async () => {
    const query = 'floral perfume for work in spring';
    const attributes = attributeQuery(queryKey(query), SearchQuery.parse({ query }))!;
    const response = await es.client.search<FragranceDetail>({ index: alias, query: attributes.ranked, size: 500, _source: ['id'] });
    const found = response.hits.hits.map((hit) => hit._source!.id);
    expect(found).toContain(hand.whiteFloral.id);
    expect(found.indexOf(hand.floral.id)).toBeLessThan(found.indexOf(hand.whiteFloral.id));
  });

  it('filters brand exactly, ignoring case and accents', async () => {
    expect((await ids({ brand: 'HERMES' })).sort()).toEqual([hand.terre.id, hand.terreRouge.id].sort());
    expect(await ids({ brand: 'herm' })).toEqual([]);
  });

  it('pages by cursor through exactly the hits of offset paging', async () => {
    const byOffset: string[] = [];
    for (let offset = 0; offset < 60; offset += 20) byOffset.push(...(await ids({ query: 'rose', limit: '20', offset: String(offset) })));
    const byCursor: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 3; page += 1) {
      const res = await repo.search(SearchQuery.parse({ query: 'rose', limit: '20', ...(cursor ? { cursor } : {}) }));
      expect(res.offset).toBe(page * 20);
      byCursor.push(...res.data.map((d) => d.id));
      cursor = res.next_cursor ?? undefined;
    }
    expect(byCursor).toEqual(byOffset);
  });

  it('pages past the result window with the cursor', async () => {
    // A window of 100 stands in for production's 10,000: offset paging stops there, cursors do not.
    await es.client.indices.putSettings({ index: alias, settings: { max_result_window: 100 } });
    try {
      await expect(repo.search(SearchQuery.parse({ offset: '100', limit: '20' }))).rejects.toThrow(/result window/i);
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 6; page += 1) {
        const res = await repo.search(SearchQuery.parse({ limit: '50', ...(cursor ? { cursor } : {}) }));
        seen.push(...res.data.map((d) => d.id));
        cursor = res.next_cursor ?? undefined;
      }
      expect(seen).toHaveLength(300);
      expect(new Set(seen).size).toBe(300);
    } finally {
      await es.client.indices.putSettings({ index: alias, settings: { max_result_window: 10_000 } });
    }
  });
});
