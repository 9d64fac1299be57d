import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BrandsQuery,
  foldKey,
  FragranceSummary,
  SearchQuery,
  slugOf,
  SuggestQuery,
  TermsQuery,
  type FragranceDetail,
  type SearchQueryInput,
} from '@fragrance/contracts';
import { generateCatalogue } from '@fragrance/dataset';
import { testElasticsearch, type TestElasticsearch } from '@fragrance/testkit';
import { createDiscoveryRepository, type DiscoveryRepository } from './browse.ts';
import { createCatalogueRepository, type CatalogueRepository } from './catalogue.ts';
import { aliasTargets } from './indices.ts';
import { ingestCatalogue } from './ingest.ts';
import { buildSuggestIndex, suggestAliasOf, suggestIndexOf } from './suggest.ts';
import { makeRecord } from './testing.ts';

const hand = {
  terre: makeRecord({
    name: "Terre d'Hermès",
    brand: 'Hermès',
    votes: 9_000,
    perfumers: ['Jean-Claude Ellena'],
    concentration: 'Eau de Toilette',
  }),
  terreEdp: makeRecord({
    name: "Terre d'Hermès",
    brand: 'Hermès',
    votes: 2_000,
    perfumers: ['Christine Nagel'],
    concentration: 'Eau de Parfum',
  }),
  agar: makeRecord({
    name: 'Nuit Résineuse',
    brand: 'Quillon Atelier',
    votes: 50,
    notes: { base: ['agarwood'] },
    perfumers: ['Zoë Ørsted'],
  }),
  oud: makeRecord({ name: 'Smoke Line', brand: 'Quillon Atelier', votes: 40, notes: { base: ['oud'] } }),
  orris: makeRecord({ name: 'Poudre Grise', brand: 'Quillon Atelier', votes: 30, notes: { heart: ['orris root'] } }),
  // Two edits from "summer": a respelling a season word must not get.
  summit: makeRecord({ name: 'Summit', brand: 'Alpine House', votes: 20 }),
  libre: makeRecord({ name: 'Libre', brand: 'Yves Saint Laurent', votes: 20 }),
};
const records: FragranceDetail[] = [...generateCatalogue({ count: 1200, seed: 14 }), ...Object.values(hand)];
const notesOf = (r: FragranceDetail) => new Set([...r.notes.top, ...r.notes.heart, ...r.notes.base].map(foldKey));
/** Fragrances per folded value, as the endpoints should count them. */
function countBy(values: (r: FragranceDetail) => Iterable<string>): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of records) for (const v of new Set([...values(r)].map(foldKey))) out.set(v, (out.get(v) ?? 0) + 1);
  return out;
}

describe('discovery', () => {
  let es: TestElasticsearch;
  let alias: string;
  let discovery: DiscoveryRepository;
  let catalogue: CatalogueRepository;
  beforeAll(async () => {
    es = await testElasticsearch('discovery');
    alias = es.index('fragrances');
    await ingestCatalogue({ client: es.client, alias, records });
    discovery = createDiscoveryRepository({ client: es.client, alias });
    catalogue = createCatalogueRepository({ client: es.client, alias, cursorKeys: { current: randomBytes(32).toString('base64url') } });
  });
  afterAll(() => es.cleanup());

  const suggest = async (q: string, extra: Record<string, string> = {}) =>
    (await discovery.suggest(SuggestQuery.parse({ q, ...extra }))).data;
  const search = (input: SearchQueryInput) => catalogue.search(SearchQuery.parse(input));

  describe('ingest', () => {
    it('builds the suggestion index with the version and moves both aliases together', async () => {
      const [index] = await aliasTargets(es.client, alias);
      expect(await aliasTargets(es.client, suggestAliasOf(alias))).toEqual([suggestIndexOf(index ?? '')]);
      const brands = new Set(records.map((r) => foldKey(r.brand))).size;
      const { count } = await es.client.count({ index: suggestAliasOf(alias), query: { term: { type: 'brand' } } });
      expect(count).toBe(brands);
      const fragrances = await es.client.count({ index: suggestAliasOf(alias), query: { term: { type: 'fragrance' } } });
      expect(fragrances.count).toBe(records.length);
    });

    it('gives the suggestion index as many replicas as its version (a copy-less one turns the cluster red when its node dies)', async () => {
      const small = es.index('replicated');
      await ingestCatalogue({ client: es.client, alias: small, records: records.slice(0, 20) });
      const [copy = ''] = await aliasTargets(es.client, small);
      await es.client.indices.delete({ index: suggestIndexOf(copy) });
      // One node here: the replica stays unassigned, the setting is what counts.
      try {
        await buildSuggestIndex(es.client, copy, { replicas: 1 });
        const settings = await es.client.indices.getSettings({ index: suggestIndexOf(copy), name: 'index.number_of_replicas' });
        expect(settings[suggestIndexOf(copy)]?.settings?.index?.number_of_replicas).toBe('1');
      } finally {
        // A yellow index left behind would turn the shared test cluster yellow for every other test.
        await es.client.indices.delete({ index: [copy, suggestIndexOf(copy)], ignore_unavailable: true });
      }
    });
  });

  describe('suggest', () => {
    it('completes the last word as a prefix, accent- and case-insensitively', async () => {
      for (const q of ['terre d herm', "TERRE D'HERMÈS", 'terre d hermes']) {
        const found = await suggest(q, { types: 'fragrance' });
        expect(found[0], q).toEqual({ type: 'fragrance', text: "Terre d'Hermès", brand: 'Hermès', id: hand.terre.id });
        // Twins by name: the more popular first.
        expect(found[1]?.id, q).toBe(hand.terreEdp.id);
      }
    });

    it('tolerates typos', async () => {
      expect((await suggest('terre d hremes', { types: 'fragrance' }))[0]?.id).toBe(hand.terre.id);
      expect((await suggest('quilon atelier', { types: 'brand' }))[0]).toMatchObject({ type: 'brand', slug: 'quillon-atelier', count: 3 });
    });

    it('tolerates two letters swapped in the word being typed', async () => {
      expect((await suggest('quillon atleie', { types: 'brand' }))[0]).toMatchObject({ type: 'brand', slug: 'quillon-atelier' });
      expect((await suggest('terre d hemr', { types: 'fragrance' }))[0]?.id).toBe(hand.terre.id);
    });

    it('suggests a brand and its fragrances for an alias or another spelling', async () => {
      expect((await suggest('ysl', { types: 'brand' }))[0]).toMatchObject({ type: 'brand', slug: 'yves-saint-laurent' });
      expect((await suggest('ysl lib', { types: 'fragrance' }))[0]?.id).toBe(hand.libre.id);
      expect((await suggest('terre dherm', { types: 'fragrance' }))[0]?.id).toBe(hand.terre.id);
    });

    it('suggests brands, perfumers, notes and accords with their counts', async () => {
      expect(await suggest('hermè', { types: 'brand' })).toEqual([
        { type: 'brand', text: 'Hermès', slug: 'hermes', count: records.filter((r) => r.brand === 'Hermès').length },
      ]);
      expect((await suggest('zoe ors'))[0]).toEqual({ type: 'perfumer', text: 'Zoë Ørsted', slug: 'zoe-orsted', count: 1 });
      const notes = countBy((r) => notesOf(r));
      expect((await suggest('agarw', { types: 'note' }))[0]).toEqual({
        type: 'note',
        text: 'agarwood',
        slug: 'agarwood',
        count: notes.get('agarwood'),
      });
      const accords = countBy((r) => r.accords);
      const accord = records[0]?.accords[0] ?? 'woody';
      expect(await suggest(accord, { types: 'accord', limit: '1' })).toEqual([
        { type: 'accord', text: accord, slug: slugOf(accord), count: accords.get(foldKey(accord)) },
      ]);
    });

    it('ranks equally good matches by popularity and respects limit and types', async () => {
      const found = await suggest('a', { limit: '20' });
      expect(found).toHaveLength(20);
      const kinds = await suggest('a', { types: 'note,accord', limit: '20' });
      expect(kinds.every((s) => s.type === 'note' || s.type === 'accord')).toBe(true);
    });
  });

  describe('browse', () => {
    it('lists brands with slug, country, count and top accords, most fragrances first, paged', async () => {
      const counts = countBy((r) => [r.brand]);
      const page = await discovery.brands(BrandsQuery.parse({ limit: '5' }));
      expect(page.total).toBe(counts.size);
      const expected = [...counts.values()].sort((a, b) => b - a).slice(0, 5);
      expect(page.data.map((b) => b.fragrance_count)).toEqual(expected);
      const first = page.data[0];
      expect(first?.slug).toBe(slugOf(first?.name ?? ''));
      expect(first?.top_accords.length).toBeGreaterThan(0);
      const next = await discovery.brands(BrandsQuery.parse({ limit: '5', offset: '5' }));
      expect(next.data.map((b) => b.slug).filter((s) => page.data.some((b) => b.slug === s))).toEqual([]);
    });

    it('filters brands by country and search', async () => {
      const fr = new Set(records.filter((r) => r.country === 'FR').map((r) => foldKey(r.brand)));
      const page = await discovery.brands(BrandsQuery.parse({ country: 'fr', limit: '100' }));
      expect(page.total).toBe(fr.size);
      expect(page.data.every((b) => b.country === 'FR')).toBe(true);
      expect((await discovery.brands(BrandsQuery.parse({ search: 'HERMES' }))).data[0]?.slug).toBe('hermes');
      expect((await discovery.brands(BrandsQuery.parse({ search: 'YSL' }))).data[0]?.slug).toBe('yves-saint-laurent');
    });

    it('details one brand', async () => {
      const brand = await discovery.brand('quillon-atelier');
      expect(brand).toMatchObject({
        slug: 'quillon-atelier',
        name: 'Quillon Atelier',
        fragrance_count: 3,
        votes: 120,
        year_first: 2015,
        year_last: 2015,
      });
      expect(brand?.top_notes).toContain('agarwood');
      expect(brand?.perfumers).toEqual(['Zoë Ørsted']);
      expect(await discovery.brand('no-such-brand')).toBeUndefined();
    });

    it.each(['notes', 'accords', 'perfumers'] as const)('lists %s with counts over the records', async (kind) => {
      const counts = countBy((r) => (kind === 'notes' ? notesOf(r) : kind === 'accords' ? r.accords : r.perfumers));
      const page = await discovery.terms(kind, TermsQuery.parse({ limit: '100' }));
      expect(page.total).toBe(counts.size);
      for (const term of page.data) expect(term.fragrance_count, term.slug).toBe(counts.get(foldKey(term.name)));
      const search = await discovery.terms(kind, TermsQuery.parse({ search: page.data[3]?.name ?? '' }));
      expect(search.data[0]?.slug).toBe(page.data[3]?.slug);
    });
  });

  describe('filters, facets and synonyms', () => {
    it.each([
      [{ season: 'winter,autumn' }, (r: FragranceDetail) => r.seasons.includes('winter') && r.seasons.includes('autumn')],
      [{ occasion: 'Date-Night' }, (r: FragranceDetail) => r.occasions.includes('date night')],
      [{ rating_min: '4.2' }, (r: FragranceDetail) => (r.rating.average ?? -1) >= 4.2],
      [{ votes_min: '500' }, (r: FragranceDetail) => r.rating.count >= 500],
      [{ perfumer: 'jean claude ELLENA' }, (r: FragranceDetail) => r.perfumers.some((p) => foldKey(p) === 'jean claude ellena')],
      [{ gender: 'women' }, (r: FragranceDetail) => r.gender === 'women'],
      // One gender per record: a list means any of them.
      [{ gender: 'Men,unisex' }, (r: FragranceDetail) => r.gender === 'men' || r.gender === 'unisex'],
    ])('%o counts what the records say', async (input, keep) => {
      const expected = records.filter(keep).length;
      expect(expected).toBeGreaterThan(0);
      expect((await search(input)).total).toBe(expected);
    });

    it('counts note, season and occasion facets over every hit', async () => {
      const page = await search({ facets: 'note,season,occasion' });
      const notes = countBy((r) => notesOf(r));
      for (const bucket of page.facets?.note ?? []) expect(bucket.count).toBe(notes.get(bucket.value));
      expect(page.facets?.note).toHaveLength(30);
      const seasons = countBy((r) => r.seasons);
      expect(Object.fromEntries((page.facets?.season ?? []).map((b) => [b.value, b.count]))).toEqual(Object.fromEntries(seasons));
      const occasions = countBy((r) => r.occasions);
      expect(Object.fromEntries((page.facets?.occasion ?? []).map((b) => [b.value, b.count]))).toEqual(Object.fromEntries(occasions));
    });

    it('counts the gender facet over records that carry one, and returns each hit with its gender', async () => {
      const page = await search({ facets: 'gender', gender: 'women,men,unisex', limit: '100' });
      const genders = countBy((r) => (r.gender ? [r.gender] : []));
      expect(Object.fromEntries((page.facets?.gender ?? []).map((b) => [b.value, b.count]))).toEqual(Object.fromEntries(genders));
      // The hand-made records and a share of generated ones say no gender: the filter leaves them out.
      const without = records.filter((r) => r.gender === undefined).length;
      expect(without).toBeGreaterThan(Object.keys(hand).length);
      expect(page.total).toBe(records.length - without);
      const byId = new Map(records.map((r) => [r.id, r]));
      for (const hit of page.data) expect(hit.gender).toBe(byId.get(hit.id)?.gender);
      const unfiltered = await search({ limit: '100' });
      expect(unfiltered.data.some((hit) => hit.gender === undefined)).toBe(unfiltered.data.some((hit) => !byId.get(hit.id)?.gender));
    });

    it('note and accord filters and query match synonyms: oud ↔ agarwood, orris ↔ iris root', async () => {
      const oudish = records.filter((r) => notesOf(r).has('oud') || notesOf(r).has('agarwood')).length;
      expect((await search({ note: 'oud' })).total).toBe(oudish);
      expect((await search({ note: 'AGARWOOD' })).total).toBe(oudish);
      expect((await search({ exclude_note: 'agarwood' })).total).toBe(records.length - oudish);
      const ids = (await search({ query: 'agarwood quillon', limit: '10' })).data.map((d) => d.id);
      expect(ids.sort()).toEqual([hand.agar.id, hand.oud.id].sort());
      expect((await search({ query: 'iris root quillon' })).data.map((d) => d.id)).toEqual([hand.orris.id]);
    });

    it('a concentration in the text (EDP, eau de toilette) ranks the record of that concentration first, never required', async () => {
      const edp = (await search({ query: 'terre d hermes edp' })).data.map((d) => d.id);
      expect(edp[0]).toBe(hand.terreEdp.id);
      expect(edp).toContain(hand.terre.id);
      const edt = (await search({ query: 'terre d hermes eau de toilette' })).data.map((d) => d.id);
      expect(edt[0]).toBe(hand.terre.id);
      expect(edt).toContain(hand.terreEdp.id);
    });
  });

  describe('highlight and did_you_mean', () => {
    it('gives the matched words of each field with offsets into the original text', async () => {
      const page = await search({ query: 'hermes jean claude', highlight: 'true', limit: '1' });
      expect(page.data[0]?.id).toBe(hand.terre.id);
      expect(page.data[0]?.highlight).toEqual({
        name: [{ text: "Terre d'Hermès", matches: [{ start: 8, end: 14 }] }],
        brand: [{ text: 'Hermès', matches: [{ start: 0, end: 6 }] }],
        perfumers: [
          {
            text: 'Jean-Claude Ellena',
            matches: [
              { start: 0, end: 4 },
              { start: 5, end: 11 },
            ],
          },
        ],
      });
      // Every summary field the record has (hand.terre has no gender), and its highlight.
      const present = Object.keys(FragranceSummary.shape).filter((field) => (hand.terre as Record<string, unknown>)[field] !== undefined);
      expect(Object.keys(page.data[0] ?? {}).sort()).toEqual([...present, 'highlight'].sort());
      const synonym = await search({ query: 'oud quillon', highlight: 'true' });
      const agar = synonym.data.find((d) => d.id === hand.agar.id);
      expect(agar?.highlight?.notes).toEqual([{ text: 'agarwood', matches: [{ start: 0, end: 8 }] }]);
      expect((await search({ highlight: 'true', limit: '1' })).data[0]?.highlight).toEqual({});
    });

    it('offers a respelling when a query finds little and a close spelling finds more', async () => {
      // Five letters allow one edit in search; "qulon" is two from "quillon".
      const page = await search({ query: 'qulon' });
      expect(page.total).toBeLessThan(3);
      expect(page.did_you_mean).toEqual({ query: 'quillon', total: 3 });
      expect((await search({ query: 'quillon' })).did_you_mean).toBeUndefined();
    });

    it('never respells a season or an occasion: they are understood, not misspelt', async () => {
      // Lexical search cannot match "summer" (seasons are not searchable text; hybrid's attribute
      // leg reads them), and "summit" would find a record: still no "did you mean alpine summit".
      // The query is relaxed to "alpine" instead (no record has "summer" as text).
      const page = await search({ query: 'alpine summer', search_mode: 'lexical' });
      expect(page.relaxed).toEqual({ dropped: ['summer'] });
      expect(page.did_you_mean).toBeUndefined();
      expect((await search({ query: 'alpine summit', search_mode: 'lexical' })).total).toBe(1);
    });
  });
});
