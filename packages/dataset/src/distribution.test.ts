import type { FragranceDetail } from '@fragrance/contracts';
import { deriveAccords } from '@fragrance/vocabulary';
import { beforeAll, describe, expect, it } from 'vitest';
import { deriveGender, NO_GENDER_SHARE } from './gender.ts';
import { generateCatalogue } from './generate.ts';

const hasDiacritic = (s: string) => /\P{ASCII}/u.test(s);
const share = <T>(items: readonly T[], test: (item: T) => boolean) => items.filter(test).length / items.length;

describe('distributions of a 20,000-record run', () => {
  let records: FragranceDetail[];
  beforeAll(() => {
    records = [...generateCatalogue({ count: 20_000, seed: 2026 })];
  });

  it('has a long tail of brand sizes', () => {
    const byBrand = new Map<string, number>();
    for (const r of records) byBrand.set(r.brand, (byBrand.get(r.brand) ?? 0) + 1);
    const sizes = [...byBrand.values()].sort((a, b) => b - a);
    expect(sizes.length).toBeGreaterThan(600); // ~800 brands for 20k (3000 for 75k)
    expect(sizes[0]).toBeGreaterThanOrEqual(100);
    expect(sizes[Math.floor(sizes.length / 2)]).toBeLessThanOrEqual(10);
    expect(sizes.filter((s) => s <= 3).length).toBeGreaterThan(sizes.length * 0.15);
  });

  it('spreads years over 1900–2026, skewed recent, with a few unknown', () => {
    const years = records.map((r) => r.year_released).filter((y): y is number => y !== null);
    expect(Math.min(...years)).toBeGreaterThanOrEqual(1900);
    expect(Math.max(...years)).toBeLessThanOrEqual(2026);
    expect(Math.min(...years)).toBeLessThan(1950);
    const nulls = 1 - years.length / records.length;
    expect(nulls).toBeGreaterThan(0.005);
    expect(nulls).toBeLessThan(0.05);
    expect(share(years, (y) => y >= 2000)).toBeGreaterThan(0.6);
    expect(share(years, (y) => y >= 2016)).toBeGreaterThan(share(years, (y) => y < 2000));
  });

  it('uses diacritics in a good share of product, brand and perfumer names', () => {
    expect(share(records, (r) => hasDiacritic(r.name))).toBeGreaterThan(0.3);
    expect(share([...new Set(records.map((r) => r.brand))], hasDiacritic)).toBeGreaterThan(0.3);
    expect(share([...new Set(records.flatMap((r) => r.perfumers))], hasDiacritic)).toBeGreaterThan(0.3);
  });

  it('leaves 10–20% of records without each enrichable field', () => {
    for (const missing of [
      (r: FragranceDetail) => r.accords.length === 0,
      (r: FragranceDetail) => r.perfumers.length === 0,
      (r: FragranceDetail) => r.description === null,
      (r: FragranceDetail) => r.seasons.length === 0,
      (r: FragranceDetail) => r.occasions.length === 0,
    ]) {
      expect(share(records, missing)).toBeGreaterThan(0.1);
      expect(share(records, missing)).toBeLessThan(0.2);
    }
  });

  it('gives most records a gender that follows their accords, a few none', () => {
    for (const gender of ['women', 'men', 'unisex'] as const) expect(share(records, (r) => r.gender === gender)).toBeGreaterThan(0.15);
    const none = share(records, (r) => r.gender === undefined);
    expect(none).toBeGreaterThan(NO_GENDER_SHARE / 2);
    expect(none).toBeLessThan(NO_GENDER_SHARE * 2);
    const leading = (accords: string[]) => records.filter((r) => accords.includes(deriveAccords(r.notes)[0] ?? ''));
    const floral = leading(['floral', 'white floral', 'rose']);
    const aromatic = leading(['aromatic', 'fresh spicy', 'leather']);
    expect(share(floral, (r) => r.gender === 'women')).toBeGreaterThan(0.5);
    expect(share(aromatic, (r) => r.gender === 'men')).toBeGreaterThan(0.4);
    expect(share(floral, (r) => r.gender === 'men')).toBeLessThan(share(aromatic, (r) => r.gender === 'men') / 3);
    // Derived from the accords and the id alone: the same inputs, the same answer.
    for (const r of records.slice(0, 200)) expect(r.gender).toBe(deriveGender(deriveAccords(r.notes), r.id));
  });

  it('gives a minority AU offers and a few records operator curation', () => {
    const withOffers = share(records, (r) => r.au_offers.length > 0);
    expect(withOffers).toBeGreaterThan(0.12);
    expect(withOffers).toBeLessThan(0.18);
    const curated = share(records, (r) => r.provenance_tags.includes('operator_curated'));
    expect(curated).toBeGreaterThan(0.03);
    expect(curated).toBeLessThan(0.15);
    // Most records were never checked against AU retailers, or long ago.
    expect(share(records, (r) => r.au_availability.checked_at === null)).toBeGreaterThan(0.8);
  });

  it('has long-tailed vote counts and null averages exactly when there are no votes', () => {
    const counts = records.map((r) => r.rating.count).sort((a, b) => a - b);
    expect(share(counts, (c) => c <= 50)).toBeGreaterThan(0.5);
    expect(counts.at(-1)).toBeGreaterThanOrEqual(5000);
    expect(share(counts, (c) => c === 0)).toBeGreaterThan(0.03);
    for (const r of records) expect(r.rating.average === null).toBe(r.rating.count === 0);
  });

  it('derives accords from notes, so enrichment can derive missing ones the same way', () => {
    const community = records.filter(
      (r) => r.accords.length > 0 && !r.provenance.some((p) => p.source === 'operator_curated' && p.fields.includes('accords')),
    );
    for (const r of community) expect(r.accords).toEqual(deriveAccords(r.notes));
    expect(share(records, (r) => r.notes.top.length > 0 && r.notes.heart.length > 0 && r.notes.base.length > 0)).toBe(1);
  });

  it('repeats popular names across brands but never within a brand and concentration', () => {
    const brandsByName = new Map<string, Set<string>>();
    for (const r of records) {
      const set = brandsByName.get(r.name) ?? new Set<string>();
      set.add(r.brand);
      brandsByName.set(r.name, set);
    }
    expect(Math.max(...[...brandsByName.values()].map((s) => s.size))).toBeGreaterThan(10);
    // Flankers: the same name in two concentrations at one house.
    const perBrandName = new Map<string, number>();
    for (const r of records) perBrandName.set(`${r.brand}|${r.name}`, (perBrandName.get(`${r.brand}|${r.name}`) ?? 0) + 1);
    expect([...perBrandName.values()].some((n) => n > 1)).toBe(true);
  });

  it('shares perfumers across brands', () => {
    const brandsByPerfumer = new Map<string, Set<string>>();
    for (const r of records) {
      for (const p of r.perfumers) {
        const set = brandsByPerfumer.get(p) ?? new Set<string>();
        set.add(r.brand);
        brandsByPerfumer.set(p, set);
      }
    }
    expect(share([...brandsByPerfumer.values()], (s) => s.size > 1)).toBeGreaterThan(0.5);
  });
});
