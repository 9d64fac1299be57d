import { z } from 'zod';
import {
  FacetBucket,
  FragranceDetail,
  CONCENTRATIONS,
  GENDERS,
  MAX_LIMIT,
  MAX_LIST_ITEMS,
  MAX_RESULT_WINDOW,
  OCCASIONS,
  SEASONS,
  SearchQuery,
  SEARCH_MODES,
  SearchResponse,
  SimilarResponse,
  SORTS,
} from '@fragrance/contracts';
import { toQueryStrings } from './run.ts';

/** The description the contract gives a search parameter, so the tool and the API say the same. */
function described<T extends z.ZodType>(schema: T, parameter: keyof typeof SearchQuery.shape): T {
  const description = SearchQuery.shape[parameter].meta()?.description;
  return description ? schema.describe(description) : schema;
}

const names = () => z.array(z.string().min(1).max(100)).min(1).max(MAX_LIST_ITEMS);

/**
 * search_fragrances takes every parameter of GET /v1/fragrances, typed for an assistant (numbers
 * as numbers, lists as arrays). The converted query string is then checked by the contract's
 * own SearchQuery before anything is sent, so the rules live in one place.
 */
export const SearchInput = {
  query: described(z.string().max(200).optional(), 'query'),
  brand: described(z.string().min(1).max(100).optional(), 'brand'),
  concentration: described(z.string().min(1).max(40).optional(), 'concentration'),
  country: described(z.string().optional(), 'country'),
  year_from: described(z.number().int().optional(), 'year_from'),
  year_to: described(z.number().int().optional(), 'year_to'),
  note: names().optional().describe('Notes the fragrance must all have (any of top, heart, base).'),
  exclude_note: names().optional().describe('Notes the fragrance must have none of.'),
  accord: names().optional().describe('Accords the fragrance must all have.'),
  exclude_accord: names().optional().describe('Accords the fragrance must have none of.'),
  available_in_au: described(z.boolean().optional(), 'available_in_au'),
  perfumer: described(z.string().min(1).max(100).optional(), 'perfumer'),
  season: z
    .array(z.enum(SEASONS))
    .min(1)
    .optional()
    .describe(`Seasons the fragrance must all suit: ${SEASONS.join(', ')}.`),
  occasion: z
    .array(z.enum(OCCASIONS))
    .min(1)
    .optional()
    .describe(`Occasions the fragrance must all suit: ${OCCASIONS.join(', ')}.`),
  gender: described(z.array(z.enum(GENDERS)).min(1).max(GENDERS.length).optional(), 'gender'),
  rating_min: described(z.number().min(0).max(5).optional(), 'rating_min'),
  votes_min: described(z.number().int().min(0).optional(), 'votes_min'),
  sort: described(z.enum(SORTS).optional(), 'sort'),
  limit: z.number().int().min(1).max(MAX_LIMIT).default(10).describe(`Results per page, 1..${MAX_LIMIT}; default 10 here.`),
  offset: described(z.number().int().min(0).max(MAX_RESULT_WINDOW).optional(), 'offset'),
  cursor: described(z.string().optional(), 'cursor'),
  search_mode: described(z.enum(SEARCH_MODES).optional(), 'search_mode'),
};
export type SearchArgs = z.infer<z.ZodObject<typeof SearchInput>>;

/** Tool arguments → the data API's query string values (lists comma-joined, numbers as text). */
export function toSearchQuery(args: Partial<SearchArgs>): Record<string, string> {
  return toQueryStrings(args);
}

export const SearchOutput = SearchResponse.omit({ facets: true }).shape;

export const GetInput = { id: z.uuid().describe('Fragrance id (UUID) from a search result.') };
export const GetOutput = FragranceDetail.shape;

export const SimilarInput = {
  id: z.uuid().describe('Fragrance id (UUID) to find look-alikes of.'),
  limit: z.number().int().min(1).max(50).default(10).describe('How many similar fragrances, 1..50; default 10.'),
  other_brands: z.boolean().optional().describe('true: only other houses (alternatives, "dupes"), never the source\'s brand.'),
  available_in_au: z.boolean().optional().describe('true: only fragrances available at an Australian retailer.'),
  max_price_aud: z
    .number()
    .positive()
    .max(100_000)
    .optional()
    .describe('Only fragrances whose cheapest Australian offer is at most this many AUD.'),
  concentration: z.enum(CONCENTRATIONS).optional().describe('Only this concentration.'),
  gender: z.enum(GENDERS).optional().describe('Only fragrances marketed to this gender.'),
  year_from: z.number().int().min(1000).max(9999).optional().describe('Released in or after this year.'),
  year_to: z.number().int().min(1000).max(9999).optional().describe('Released in or before this year.'),
  exclude_flankers: z.boolean().optional().describe('true: nothing of the source\'s own line ("Sauvage" leaves out "Sauvage Elixir").'),
};
export const SimilarOutput = {
  id: z.uuid().describe('The fragrance the results are similar to.'),
  ...SimilarResponse.shape,
};

/** list_facets narrows with the same filters as search (no paging: counts cover every hit). */
export const FacetsInput = {
  query: SearchInput.query,
  brand: SearchInput.brand,
  concentration: SearchInput.concentration,
  country: SearchInput.country,
  year_from: SearchInput.year_from,
  year_to: SearchInput.year_to,
  note: SearchInput.note,
  accord: SearchInput.accord,
  available_in_au: SearchInput.available_in_au,
  perfumer: SearchInput.perfumer,
  season: SearchInput.season,
  occasion: SearchInput.occasion,
  rating_min: SearchInput.rating_min,
  votes_min: SearchInput.votes_min,
  gender: SearchInput.gender,
};
export const FacetsOutput = {
  total: z.number().int().min(0).describe('Fragrances matching the filters.'),
  brands: z.array(FacetBucket).describe('Top brands by number of fragrances.'),
  concentrations: z.array(FacetBucket),
  accords: z.array(FacetBucket).describe('Top accords by number of fragrances.'),
  decades: z.array(FacetBucket).describe('Decades of release, oldest first.'),
  notes: z.array(FacetBucket).describe('Top notes (folded spelling, usable as the note filter).'),
  seasons: z.array(FacetBucket).describe('Seasons the matching fragrances suit.'),
  occasions: z.array(FacetBucket).describe('Occasions the matching fragrances suit.'),
  genders: z.array(FacetBucket).describe('Genders the matching fragrances are marketed to (fragrances without one are not counted).'),
};
