// Test helpers (exported as @fragrance/search/testing): hand-made records with known names,
// so relevance tests can assert exact orderings next to generated records.
import { randomUUID } from 'node:crypto';
import type { Concentration, FragranceDetail } from '@fragrance/contracts';

export interface RecordOverrides {
  id?: string;
  name: string;
  brand: string;
  country?: string;
  concentration?: Concentration;
  year_released?: number | null;
  votes?: number;
  average?: number | null;
  notes?: Partial<FragranceDetail['notes']>;
  accords?: string[];
  perfumers?: string[];
  available_in_au?: boolean;
}

/** A valid FragranceDetail with the given distinguishing fields. */
export function makeRecord(o: RecordOverrides): FragranceDetail {
  const accords = o.accords ?? ['woody', 'citrus'];
  const available = o.available_in_au ?? false;
  return {
    id: o.id ?? randomUUID(),
    name: o.name,
    brand: o.brand,
    country: o.country ?? 'FR',
    concentration: o.concentration ?? 'Eau de Parfum',
    year_released: o.year_released === undefined ? 2015 : o.year_released,
    rating: { average: o.average === undefined ? 4 : o.average, count: o.votes ?? 10 },
    main_accords: accords.slice(0, 5),
    available_in_au: available,
    description: null,
    notes: { top: o.notes?.top ?? ['bergamot'], heart: o.notes?.heart ?? ['jasmine'], base: o.notes?.base ?? ['musk'] },
    accords,
    perfumers: o.perfumers ?? [],
    seasons: [],
    occasions: [],
    provenance_tags: ['operator_curated'],
    provenance: [{ source: 'operator_curated', fields: ['name'], recorded_at: '2026-01-01T00:00:00Z' }],
    au_availability: { available, price_min_aud: available ? 120 : null, price_max_aud: available ? 180 : null, checked_at: null },
    au_offers: [],
    updated_at: '2026-01-01T00:00:00Z',
  };
}
