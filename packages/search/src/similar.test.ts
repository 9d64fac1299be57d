import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldKey, SimilarQuery, type FragranceDetail, type SimilarFragrance } from '@fragrance/contracts';
import { generateCatalogue } from '@fragrance/dataset';
import { testElasticsearch, type TestElasticsearch } from '@fragrance/testkit';
import { createCatalogueRepository, type CatalogueRepository } from './catalogue.ts';
import { ingestCatalogue } from './ingest.ts';
import { lineName } from './similar.ts';
import { makeRecord } from './testing.ts';
import { EMBEDDING_DIMENSIONS } from './vectors.ts';

// Alternatives that explain themselves (issue 38), on real Elasticsearch next to generated records.
const aromatic = { top: ['bergamot', 'pink pepper'], heart: ['lavender', 'geranium'], base: ['ambroxan', 'vetiver'] };
const hand = {
  sauvage: makeRecord({ name: 'Sauvage', brand: 'Dior', votes: 40_000, notes: aromatic, accords: ['fresh spicy', 'aromatic', 'woody'] }),
  sauvageElixir: makeRecord({ name: 'Sauvage Elixir', brand: 'Dior', votes: 9_000, notes: aromatic, accords: ['fresh spicy', 'aromatic'] }),
  sauvageEdp: makeRecord({ name: 'Sauvage Eau de Parfum', brand: 'Dior', votes: 8_000, notes: aromatic, accords: ['aromatic', 'woody'] }),
  dupe: makeRecord({
    name: 'Savage Man',
    brand: 'Copy House',
    votes: 300,
    notes: { top: ['bergamot'], heart: ['lavender'], base: ['ambroxan', 'tonka bean'] },
    accords: ['fresh spicy', 'aromatic'],
    available_in_au: true,
  }),
  cheapDupe: makeRecord({
    name: 'Wild Blue',
    brand: 'Budget Scents',
    votes: 200,
    notes: { top: ['bergamot', 'pink pepper'], heart: ['geranium'], base: ['ambroxan'] },
    accords: ['fresh spicy', 'woody'],
    available_in_au: true,
  }),
  diorOther: makeRecord({ name: 'Homme', brand: 'Dior', votes: 5_000, notes: aromatic, accords: ['aromatic', 'powdery'] }),
};
// Two records with one note each and nothing in common: only their vectors make them neighbours.
const sparse = {
  a: makeRecord({ name: 'Sparse One', brand: 'Vector House', notes: { top: ['yuzu'], heart: [], base: [] }, accords: ['citrus'] }),
  b: makeRecord({ name: 'Sparse Two', brand: 'Other Vector House', notes: { top: ['mandarin'], heart: [], base: [] }, accords: ['green'] }),
};
// Prices: the cheap dupe has its cheapest AU offer at 45, the other at 120 (makeRecord's default).
const priced = (r: FragranceDetail, min: number): FragranceDetail => ({
  ...r,
  au_availability: { ...r.au_availability, price_min_aud: min, price_max_aud: min + 20 },
});
const records = [
  ...generateCatalogue({ count: 600, seed: 38 }),
  ...Object.values(hand).map((r) => (r === hand.cheapDupe ? priced(r, 45) : r)),
  ...Object.values(sparse),
];
const byId = new Map(records.map((r) => [r.id, r]));
const notesOf = (r: FragranceDetail) => new Set([...r.notes.top, ...r.notes.heart, ...r.notes.base].map(foldKey));

describe('similar fragrances', () => {
  let es: TestElasticsearch;
  let repo: CatalogueRepository;
  beforeAll(async () => {
    es = await testElasticsearch('similar');
    const alias = es.index('fragrances');
    await ingestCatalogue({ client: es.client, alias, records });
    // Near-identical vectors for the two sparse records, a far one elsewhere (no model needed).
    const unit = (seed: number) => Array.from({ length: EMBEDDING_DIMENSIONS }, (_, i) => Math.sin(i * seed + seed));
    const embedding = (vector: number[]) => ({
      vector,
      source: 'ai_enriched',
      model: 'test@1',
      input: 'x',
      recorded_at: '2026-01-01T00:00:00Z',
    });
    const near = unit(1);
    for (const [id, vector] of [
      [sparse.a.id, near],
      [sparse.b.id, near.map((x, i) => x + (i % 7 === 0 ? 0.01 : 0))],
    ] as const) {
      await es.client.update({ index: alias, id, doc: { embedding: embedding([...vector]) } });
    }
    await es.client.indices.refresh({ index: alias });
    repo = createCatalogueRepository({ client: es.client, alias, cursorKeys: { current: randomBytes(32).toString('base64url') } });
  });
  afterAll(() => es.cleanup());

  const similar = async (id: string, input: Record<string, string> = {}): Promise<SimilarFragrance[]> => {
    const { limit = 10, ...filters } = SimilarQuery.parse(input);
    const found = await repo.similar(id, limit, filters);
    if (!found) throw new Error(`no record ${id}`);
    return found;
  };

  it('names only notes and accords both records have, with a closeness in 0..1', async () => {
    const source = hand.sauvage;
    const alternatives = await similar(source.id, { limit: '20' });
    expect(alternatives.length).toBe(20);
    for (const alt of alternatives) {
      const record = byId.get(alt.id)!;
      const { shared_notes, shared_main_accords, shared_accords, distinctive } = alt.reasons;
      for (const tier of ['top', 'heart', 'base'] as const)
        for (const note of shared_notes[tier]) {
          expect(source.notes[tier].map(foldKey), note).toContain(foldKey(note));
          expect(notesOf(record).has(foldKey(note)), `${alt.name} has ${note}`).toBe(true);
        }
      for (const accord of [...shared_main_accords, ...shared_accords]) {
        expect(source.accords.map(foldKey)).toContain(foldKey(accord));
        expect(record.accords.map(foldKey)).toContain(foldKey(accord));
      }
      for (const term of distinctive) {
        const key = foldKey(term);
        const both =
          (notesOf(source).has(key) && notesOf(record).has(key)) ||
          (source.accords.map(foldKey).includes(key) && record.accords.map(foldKey).includes(key));
        expect(both, term).toBe(true);
      }
      for (const added of alt.reasons.adds.notes) expect(notesOf(source).has(foldKey(added))).toBe(false);
      expect(alt.closeness).toBeGreaterThanOrEqual(0);
      expect(alt.closeness).toBeLessThanOrEqual(1);
      expect(alt.reasons.summary).not.toMatch(/identical|same as/i);
    }
    // The dupe shares four notes: its reasons say which, by the source's tier.
    const dupe = alternatives.find((a) => a.id === hand.dupe.id);
    expect(dupe?.reasons.shared_notes).toEqual({ top: ['bergamot'], heart: ['lavender'], base: ['ambroxan'] });
    expect(dupe?.reasons.adds.notes).toEqual(['tonka bean']);
  });

  it('is the same closeness for the same pair whatever else is asked', async () => {
    const plain = (await similar(hand.sauvage.id)).find((a) => a.id === hand.dupe.id);
    const filtered = (await similar(hand.sauvage.id, { other_brands: 'true', available_in_au: 'true' })).find((a) => a.id === hand.dupe.id);
    expect(plain?.closeness).toBeDefined();
    expect(filtered?.closeness).toBe(plain?.closeness);
  });

  it('keeps the spread across houses: one per house before any repeats', async () => {
    const top = (await similar(hand.sauvage.id)).slice(0, 10);
    expect(new Set(top.map((a) => foldKey(a.brand))).size).toBe(10);
  });

  it('other_brands never returns the source house', async () => {
    const before = await similar(hand.sauvage.id, { limit: '50' });
    expect(before.some((a) => a.brand === 'Dior')).toBe(true);
    const alternatives = await similar(hand.sauvage.id, { other_brands: 'true', limit: '50' });
    expect(alternatives.length).toBe(50);
    expect(alternatives.filter((a) => foldKey(a.brand) === 'dior')).toEqual([]);
  });

  it('exclude_flankers leaves out the line, not the house', async () => {
    expect(lineName('Sauvage Elixir')).toBe('sauvage');
    expect(lineName('Sauvage Eau de Parfum')).toBe('sauvage');
    const line = [hand.sauvageElixir.id, hand.sauvageEdp.id];
    const all = (await similar(hand.sauvage.id, { limit: '50' })).map((a) => a.id);
    expect(all).toEqual(expect.arrayContaining(line));
    const without = (await similar(hand.sauvage.id, { exclude_flankers: 'true', limit: '50' })).map((a) => a.id);
    expect(without).not.toContain(hand.sauvageElixir.id);
    expect(without).not.toContain(hand.sauvageEdp.id);
    expect(without).toContain(hand.diorOther.id);
    // From a flanker, the original is of the same line.
    const fromElixir = (await similar(hand.sauvageElixir.id, { exclude_flankers: 'true', limit: '50' })).map((a) => a.id);
    expect(fromElixir).not.toContain(hand.sauvage.id);
    expect(fromElixir).not.toContain(hand.sauvageEdp.id);
  });

  it('available_in_au and max_price_aud are exact', async () => {
    const au = await similar(hand.sauvage.id, { available_in_au: 'true', limit: '50' });
    expect(au.length).toBeGreaterThan(0);
    expect(au.every((a) => a.available_in_au && byId.get(a.id)?.au_availability.available)).toBe(true);
    expect(au.map((a) => a.id)).toContain(hand.dupe.id);
    const cheap = await similar(hand.sauvage.id, { max_price_aud: '50', limit: '50' });
    expect(cheap.map((a) => a.id)).toContain(hand.cheapDupe.id);
    for (const a of cheap) {
      const price = byId.get(a.id)?.au_availability.price_min_aud;
      expect(price, a.name).not.toBeNull();
      expect(price!).toBeLessThanOrEqual(50);
    }
    expect(cheap.map((a) => a.id)).not.toContain(hand.dupe.id);
    const none = await similar(hand.sauvage.id, { max_price_aud: '44.99', other_brands: 'true' });
    expect(none.map((a) => a.id)).not.toContain(hand.cheapDupe.id);
  });

  it('concentration, gender and years filter', async () => {
    const edt = await similar(hand.sauvage.id, { concentration: 'edt', gender: 'women', year_from: '2000', year_to: '2010', limit: '50' });
    expect(edt.length).toBeGreaterThan(0);
    for (const a of edt) {
      const r = byId.get(a.id)!;
      expect(r.concentration).toBe('Eau de Toilette');
      expect(r.gender).toBe('women');
      expect(r.year_released).toBeGreaterThanOrEqual(2000);
      expect(r.year_released).toBeLessThanOrEqual(2010);
    }
  });

  it('finds a neighbour by its vector when notes say nothing, and says so', async () => {
    const alternatives = await similar(sparse.a.id, { limit: '50' });
    const b = alternatives.find((a) => a.id === sparse.b.id);
    expect(b, 'the vector neighbour').toBeDefined();
    expect(b?.reasons.vector_similarity).toBeGreaterThan(0.9);
    expect(b?.reasons.shared_notes).toEqual({ top: [], heart: [], base: [] });
    expect(b?.reasons.summary).toMatch(/no notes or accords in common/);
  });
});
