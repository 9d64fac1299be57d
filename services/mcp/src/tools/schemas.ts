import { z } from 'zod';
import { FragranceDetail, FragranceSummary } from '@fragrance/contracts';

/**
 * Tool input schemas: the data API's search parameters, typed for an assistant (numbers are
 * numbers). Values are passed through to the catalogue, which stays the one place that
 * validates semantics (vocabulary, year order) and answers 400s we turn into tool errors.
 */
export const SearchInput = {
  query: z.string().min(1).max(200).optional().describe('Free text over name, brand, perfumers, notes and accords; typo- and accent-tolerant.'),
  brand: z.string().min(1).max(100).optional().describe('Exact brand name (case- and accent-insensitive).'),
  concentration: z
    .string()
    .min(1)
    .max(40)
    .optional()
    .describe('Eau de Parfum, Eau de Toilette, Parfum, Extrait de Parfum, Eau de Cologne, Eau Fraîche; EDP/EDT/EDC accepted.'),
  country: z.string().regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 code').optional().describe("Brand's country of origin (ISO 3166-1 alpha-2, e.g. FR)."),
  year_from: z.number().int().min(1700).max(2100).optional().describe('Released in or after this year.'),
  year_to: z.number().int().min(1700).max(2100).optional().describe('Released in or before this year.'),
  limit: z.number().int().min(1).max(100).default(10).describe('Results per page (1-100, default 10).'),
  offset: z.number().int().min(0).max(10_000).optional().describe('Results to skip (paging).'),
};

export const SearchOutput = {
  data: z.array(FragranceSummary),
  total: z.number().int().min(0).describe('Number of matching fragrances.'),
  limit: z.number().int(),
  offset: z.number().int(),
};

export const GetInput = { id: z.uuid().describe('Fragrance id (UUID) from a search result.') };
export const GetOutput = FragranceDetail.shape;

export const SimilarInput = {
  id: z.uuid().describe('Fragrance id (UUID) to find look-alikes of.'),
  limit: z.number().int().min(1).max(50).default(10).describe('How many similar fragrances (1-50, default 10).'),
};
export const SimilarOutput = {
  id: z.uuid().describe('The fragrance the results are similar to.'),
  data: z.array(FragranceSummary),
};

const FacetBucket = z.object({ value: z.string(), count: z.number().int().min(0) });
export const FacetsInput = {
  query: SearchInput.query,
  brand: SearchInput.brand,
  concentration: SearchInput.concentration,
  country: SearchInput.country,
  year_from: SearchInput.year_from,
  year_to: SearchInput.year_to,
  size: z.number().int().min(1).max(100).default(20).describe('Top values per facet (1-100, default 20).'),
};
export const FacetsOutput = {
  total: z.number().int().min(0).describe('Fragrances matching the filters.'),
  brands: z.array(FacetBucket),
  concentrations: z.array(FacetBucket),
  accords: z.array(FacetBucket),
};
