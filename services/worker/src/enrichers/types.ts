import type { FragranceDetail, ProvenanceSource } from '@fragrance/contracts';

/** Record fields an enricher may supply (never id, name, brand, notes or provenance itself). */
export type EnrichableField =
  'accords' | 'main_accords' | 'description' | 'seasons' | 'occasions' | 'au_availability' | 'au_offers' | 'available_in_au';

export type SuppliedValues = Partial<Pick<FragranceDetail, EnrichableField>>;

export interface Supplied {
  values: SuppliedValues;
  /**
   * Whether the source's provenance entry should name these fields. False for data that says
   * "nothing found" (a row no AU retailer lists): the value is updated, the tag dropped.
   */
  stamp: boolean;
}

export interface EnrichContext {
  /** The run's reference time: values and stamps derive from it, so a redone batch is a no-op. */
  asOf: string;
  /** `enrich run --full`: recompute the enricher's own earlier values too. */
  full: boolean;
  signal?: AbortSignal;
}

/**
 * One enricher: looks at a batch of records and says which values it supplies for each.
 * Enrichers never write: `applySupplied` merges, guards operator_curated fields and stamps
 * provenance, so every enricher follows the same rules.
 */
export interface Enricher {
  readonly source: ProvenanceSource;
  enrich(rows: readonly FragranceDetail[], ctx: EnrichContext): Promise<Map<string, Supplied>>;
}
