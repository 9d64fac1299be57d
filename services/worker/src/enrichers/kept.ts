import type { ProvenanceSource } from '@fragrance/contracts';
import type { Enricher } from './types.ts';

/**
 * `community_taxonomy` and `operator_curated` arrive with the dataset: their enrichers supply
 * nothing, so their values and provenance entries are only ever kept (and counted as such).
 */
export function keptSource(source: Extract<ProvenanceSource, 'community_taxonomy' | 'operator_curated'>): Enricher {
  return { source, enrich: async () => new Map() };
}
