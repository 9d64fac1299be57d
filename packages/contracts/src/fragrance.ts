import { z } from 'zod';
import { NonNegativeInteger } from './numbers.ts';

/** Concentrations the catalogue knows, strongest first. Abbreviations map onto these. */
export const CONCENTRATIONS = ['Extrait de Parfum', 'Parfum', 'Eau de Parfum', 'Eau de Toilette', 'Eau de Cologne', 'Eau Fraîche'] as const;
/**
 * Other spellings of each concentration that users and retailers write (the usual
 * abbreviation first). Search accepts every one of them; the dataset writes feeds with them.
 */
export const CONCENTRATION_SPELLINGS: Readonly<Record<(typeof CONCENTRATIONS)[number], readonly string[]>> = {
  'Extrait de Parfum': ['Extrait', 'Extrait Parfum', 'Parfum Extrait'],
  Parfum: ['Parfum', 'Pure Parfum', 'Perfume'],
  'Eau de Parfum': ['EDP', 'EdP', 'Eau De Parfum'],
  'Eau de Toilette': ['EDT', 'EdT', 'Eau De Toilette'],
  'Eau de Cologne': ['EDC', 'EdC', 'Cologne', 'Eau De Cologne'],
  'Eau Fraîche': ['Eau Fraiche', 'EF', 'Eau Fraîche'],
};
export const Concentration = z.enum(CONCENTRATIONS).meta({ id: 'Concentration' });
export type Concentration = z.infer<typeof Concentration>;

/**
 * Seasons and occasions a fragrance suits (the vocabulary package derives them from accords).
 * Declared here, the lowest package, because the search parameters `season` and `occasion` are
 * enums of them.
 */
export const SEASONS = ['spring', 'summer', 'autumn', 'winter'] as const;
export const OCCASIONS = ['daily', 'office', 'leisure', 'sport', 'evening', 'date night', 'formal'] as const;
export type Season = (typeof SEASONS)[number];
export type Occasion = (typeof OCCASIONS)[number];

/** Who a fragrance is marketed to, as community catalogues (Fragrantica) record it. */
export const GENDERS = ['women', 'men', 'unisex'] as const;
export const Gender = z.enum(GENDERS).meta({
  id: 'Gender',
  description: 'Who the fragrance is marketed to, as the source catalogue records it; absent when the source does not say.',
});
export type Gender = z.infer<typeof Gender>;

/** Where a field's value came from (seed §2.5, DESIGN §5). */
export const PROVENANCE_SOURCES = ['community_taxonomy', 'operator_curated', 'ai_enriched', 'au_retailer_scrape'] as const;
export const ProvenanceSource = z.enum(PROVENANCE_SOURCES).meta({ id: 'ProvenanceSource' });
export type ProvenanceSource = z.infer<typeof ProvenanceSource>;

export const ProvenanceEntry = z
  .object({
    source: ProvenanceSource,
    fields: z.array(z.string()).meta({ description: 'Record fields this source supplied.' }),
    recorded_at: z.iso.datetime().meta({ description: 'When the source supplied them.' }),
    origin: z
      .string()
      .optional()
      .meta({ description: 'Where an imported record came from: the file layout and the source page, e.g. "fragrantica-csv https://…".' }),
  })
  .meta({ id: 'ProvenanceEntry' });
export type ProvenanceEntry = z.infer<typeof ProvenanceEntry>;

export const Rating = z
  .object({
    average: z.number().min(0).max(5).nullable().meta({ description: 'Mean rating out of 5; null without votes.' }),
    count: NonNegativeInteger.meta({ description: 'Number of votes.' }),
  })
  .meta({ id: 'Rating' });

export const Notes = z
  .object({ top: z.array(z.string()), heart: z.array(z.string()), base: z.array(z.string()) })
  .meta({ id: 'Notes', description: 'Notes of the fragrance pyramid.' });

export const AuOffer = z
  .object({
    retailer: z.string(),
    url: z.url(),
    price_aud: z.number().positive(),
    size_ml: z.number().int().positive(),
    in_stock: z.boolean(),
    seen_at: z.iso.datetime(),
  })
  .meta({ id: 'AuOffer', description: 'An offer seen at an Australian retailer.' });
export type AuOffer = z.infer<typeof AuOffer>;

export const AuAvailability = z
  .object({
    available: z.boolean(),
    price_min_aud: z.number().positive().nullable(),
    price_max_aud: z.number().positive().nullable(),
    checked_at: z.iso.datetime().nullable().meta({ description: 'Last time AU retailers were checked.' }),
  })
  .meta({ id: 'AuAvailability' });

const summaryShape = {
  id: z.uuid().meta({ description: 'UUID of the fragrance_master record.' }),
  name: z.string(),
  brand: z.string(),
  country: z
    .string()
    .regex(/^[A-Z]{2}$/)
    .meta({ description: "Brand's country of origin, ISO 3166-1 alpha-2." }),
  concentration: Concentration,
  // Optional: a catalogue without it (Parfumo's layout) leaves it out rather than guessing.
  gender: Gender.optional(),
  year_released: z.number().int().min(1700).max(2100).nullable(),
  rating: Rating,
  main_accords: z.array(z.string()).meta({ description: 'Strongest accords, at most five.' }),
  available_in_au: z.boolean(),
};

/** One search hit. */
export const FragranceSummary = z.object(summaryShape).meta({ id: 'FragranceSummary' });
export type FragranceSummary = z.infer<typeof FragranceSummary>;

/**
 * A full catalogue record: what the detail endpoint returns, what the dataset generator
 * writes one per NDJSON line, and what ingest indexes.
 */
export const FragranceDetail = z
  .object({
    ...summaryShape,
    description: z.string().nullable(),
    notes: Notes,
    accords: z.array(z.string()).meta({ description: 'All accords, strongest first.' }),
    perfumers: z.array(z.string()),
    seasons: z.array(z.string()).meta({ description: 'Seasons it suits (enrichment).' }),
    occasions: z.array(z.string()).meta({ description: 'Occasions it suits (enrichment).' }),
    provenance_tags: z.array(ProvenanceSource).meta({ description: 'Distinct sources of this record.' }),
    provenance: z.array(ProvenanceEntry),
    au_availability: AuAvailability,
    au_offers: z.array(AuOffer),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'FragranceDetail' });
export type FragranceDetail = z.infer<typeof FragranceDetail>;

/** One line of the AU retailer feed the `au_retailer_scrape` enricher matches to records. */
export const AuRetailerFeedLine = z
  .object({
    retailer: z.string(),
    brand: z.string(),
    name: z.string(),
    concentration: z.string().meta({ description: 'As the retailer wrote it (EDP, Eau de Parfum, …).' }),
    size_ml: z.number().int().positive(),
    price_aud: z.number().positive(),
    url: z.url(),
    in_stock: z.boolean(),
    seen_at: z.iso.datetime(),
  })
  .meta({ id: 'AuRetailerFeedLine' });
export type AuRetailerFeedLine = z.infer<typeof AuRetailerFeedLine>;
