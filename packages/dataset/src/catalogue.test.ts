import { AuRetailerFeedLine, FragranceDetail, PROVENANCE_SOURCES } from '@fragrance/contracts';
import { matchKey } from '@fragrance/vocabulary';
import { beforeAll, describe, expect, it } from 'vitest';
import { DATASET_AS_OF } from './catalogue.ts';
import { generateAuRetailerFeed, generateCatalogue } from './generate.ts';
import { AU_RETAILERS } from './retailers.ts';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('generateCatalogue (2,000 records)', () => {
  let records: FragranceDetail[];
  let feed: AuRetailerFeedLine[];
  beforeAll(() => {
    records = [...generateCatalogue({ count: 2000, seed: 7 })];
    feed = generateAuRetailerFeed({ count: 2000, seed: 7 });
  });

  it('yields exactly count records, each valid against FragranceDetail', () => {
    expect(records).toHaveLength(2000);
    const invalid = records.map((r) => FragranceDetail.safeParse(r)).filter((r) => !r.success);
    expect(invalid.map((r) => r.error?.issues)).toEqual([]);
    // Strict round-trip: the generator adds nothing the contract does not know.
    for (const r of records.slice(0, 50)) expect(FragranceDetail.parse(r)).toEqual(r);
  });

  it('gives every record a unique v4-format UUID and a unique (brand, name, concentration)', () => {
    const ids = new Set(records.map((r) => r.id));
    expect(ids.size).toBe(records.length);
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(new Set(records.map((r) => `${r.brand}\u0000${r.name}\u0000${r.concentration}`)).size).toBe(records.length);
    // Also unique once folded, so a retailer line can never match two records.
    expect(new Set(records.map((r) => matchKey(r.brand, r.name, r.concentration))).size).toBe(records.length);
  });

  it('keeps the derived fields consistent', () => {
    for (const r of records) {
      expect(r.main_accords).toEqual(r.accords.slice(0, 5));
      expect(r.provenance_tags).toEqual(PROVENANCE_SOURCES.filter((s) => r.provenance.some((p) => p.source === s)));
      expect(r.provenance_tags).toContain('community_taxonomy');
      expect(r.available_in_au).toBe(r.au_availability.available);
      expect(r.au_availability.available).toBe(r.au_offers.some((o) => o.in_stock));
      const inStock = r.au_offers.filter((o) => o.in_stock).map((o) => o.price_aud);
      expect(r.au_availability.price_min_aud).toBe(inStock.length ? Math.min(...inStock) : null);
      expect(r.au_availability.price_max_aud).toBe(inStock.length ? Math.max(...inStock) : null);
      const latest = r.provenance
        .map((p) => p.recorded_at)
        .sort()
        .at(-1);
      expect(r.updated_at).toBe(latest);
      expect(r.updated_at <= DATASET_AS_OF).toBe(true);
      if (r.rating.count === 0) expect(r.rating.average).toBeNull();
      else expect(r.rating.average).toBeGreaterThanOrEqual(1);
      if (r.rating.average !== null) expect(Math.round(r.rating.average * 100) / 100).toBe(r.rating.average); // 2 decimals
    }
  });

  it('records which source supplied which field', () => {
    for (const r of records) {
      const fieldsBySource = new Map(r.provenance.map((p) => [p.source, p.fields]));
      const community = fieldsBySource.get('community_taxonomy') ?? [];
      for (const f of ['name', 'brand', 'country', 'concentration', 'year_released', 'rating', 'notes']) expect(community).toContain(f);
      const supplied = r.provenance.flatMap((p) => p.fields);
      // A present optional field was supplied by exactly one source; a missing one by none.
      const present = {
        accords: r.accords.length > 0,
        perfumers: r.perfumers.length > 0,
        description: r.description !== null,
        seasons: r.seasons.length > 0,
        occasions: r.occasions.length > 0,
        gender: r.gender !== undefined,
      };
      for (const [field, has] of Object.entries(present)) expect(supplied.filter((f) => f === field)).toHaveLength(has ? 1 : 0);
      const scrape = fieldsBySource.get('au_retailer_scrape');
      expect(scrape !== undefined).toBe(r.au_offers.length > 0);
      if (r.au_offers.length > 0) {
        expect(scrape).toEqual(['au_offers', 'au_availability']);
        expect(r.au_availability.checked_at).not.toBeNull();
      } else {
        expect(r.au_availability.checked_at).toBeNull();
      }
      expect(fieldsBySource.has('ai_enriched')).toBe(false); // straight from the generator: not enriched yet
    }
  });

  it('writes AU offers at the invented retailers, in the sizes sold there', () => {
    const retailerNames = new Set(AU_RETAILERS.map((r) => r.name));
    const offers = records.flatMap((r) => r.au_offers);
    expect(offers.length).toBeGreaterThan(0);
    for (const o of offers) {
      expect(retailerNames.has(o.retailer)).toBe(true);
      expect([30, 50, 75, 100, 125, 200]).toContain(o.size_ml);
      expect(o.seen_at <= DATASET_AS_OF).toBe(true);
    }
  });

  it('produces feed lines that validate, from 4–6 retailers, with ~3% matching no record', () => {
    for (const line of feed) expect(AuRetailerFeedLine.safeParse(line).success).toBe(true);
    expect(new Set(feed.map((l) => l.retailer)).size).toBeGreaterThanOrEqual(4);
    expect(AU_RETAILERS.length).toBeLessThanOrEqual(6);
    expect(feed.length / records.length).toBeGreaterThan(0.1);
    expect(feed.length / records.length).toBeLessThan(0.17);
    const byKey = new Map(records.map((r) => [matchKey(r.brand, r.name, r.concentration), r]));
    const unmatched = feed.filter((l) => !byKey.has(matchKey(l.brand, l.name, l.concentration)));
    expect(unmatched.length / feed.length).toBeGreaterThan(0.015);
    expect(unmatched.length / feed.length).toBeLessThan(0.05);
    for (const l of feed) {
      expect([30, 50, 75, 100, 125, 200]).toContain(l.size_ml);
      expect(l.price_aud).toBeGreaterThan(0);
    }
  });

  it('writes feed lines the retailers\u2019 way: abbreviations, other case, dropped accents, size suffixes', () => {
    const byKey = new Map(records.map((r) => [matchKey(r.brand, r.name, r.concentration), r]));
    let abbreviated = 0;
    let recased = 0;
    let accentsDropped = 0;
    let sized = 0;
    let verbatim = 0;
    for (const l of feed) {
      const r = byKey.get(matchKey(l.brand, l.name, l.concentration));
      if (!r) continue;
      if (/^(EDP|EDT|EDC|edp|edt|edc|EdP|EdT|EdC)$/.test(l.concentration)) abbreviated++;
      if (l.name !== r.name && l.name.toLowerCase() === r.name.toLowerCase()) recased++;
      if (/\P{ASCII}/u.test(r.name) && !/\P{ASCII}/u.test(l.name)) accentsDropped++;
      if (/\d+\s*ml$/i.test(l.name)) sized++;
      if (l.brand === r.brand && l.name === r.name && l.concentration === r.concentration) verbatim++;
    }
    expect(abbreviated).toBeGreaterThan(0);
    expect(recased).toBeGreaterThan(0);
    expect(accentsDropped).toBeGreaterThan(0);
    expect(sized).toBeGreaterThan(0);
    // Most lines need the normalisation: a naive exact match must miss many of them.
    expect(verbatim / feed.length).toBeLessThan(0.5);
  });

  it('refreshes some records that already have offers and brings new matches for others', () => {
    const byKey = new Map(records.map((r) => [matchKey(r.brand, r.name, r.concentration), r]));
    const matched = feed.map((l) => byKey.get(matchKey(l.brand, l.name, l.concentration))).filter((r) => r !== undefined);
    expect(matched.some((r) => r.au_offers.length > 0)).toBe(true);
    expect(matched.some((r) => r.au_offers.length === 0)).toBe(true);
  });
});

describe('generateCatalogue at small counts', () => {
  it.each([1, 2, 13, 24, 26, 37, 101])('yields exactly %i valid, unique records', (count) => {
    const records = [...generateCatalogue({ count, seed: count })];
    expect(records).toHaveLength(count);
    for (const r of records) expect(FragranceDetail.safeParse(r).success).toBe(true);
    expect(new Set(records.map((r) => matchKey(r.brand, r.name, r.concentration))).size).toBe(count);
    expect(() => generateAuRetailerFeed({ count, seed: count })).not.toThrow();
  });
});
