export { InvalidParam, Problem, PROBLEM_CONTENT_TYPE, ProblemCode } from './problem.ts';
export {
  AuAvailability,
  AuOffer,
  AuRetailerFeedLine,
  Concentration,
  CONCENTRATION_SPELLINGS,
  CONCENTRATIONS,
  FragranceDetail,
  FragranceSummary,
  Gender,
  GENDERS,
  Notes,
  type Occasion,
  OCCASIONS,
  PROVENANCE_SOURCES,
  ProvenanceEntry,
  ProvenanceSource,
  Rating,
  type Season,
  SEASONS,
} from './fragrance.ts';
export { MeResponse } from './me.ts';
export { USAGE_DEFAULT_DAYS, USAGE_MAX_DAYS, UsageQuery, UsageResponse } from './usage.ts';
export {
  QueryCount,
  SEARCH_QUERY_MAX_CHARS,
  SEARCH_USAGE_DEFAULT_LIMIT,
  SEARCH_USAGE_MAX_DAYS,
  SEARCH_USAGE_MAX_LIMIT,
  SearchUsageQuery,
  SearchUsageResponse,
} from './usage-searches.ts';
export { foldKey } from './text.ts';
export {
  DEFAULT_LIMIT,
  DidYouMean,
  type Facet,
  FacetBucket,
  FACETS,
  Facets,
  FragranceIdParams,
  MAX_LIMIT,
  MAX_LIST_ITEMS,
  DEFAULT_SEARCH_MODE,
  MAX_RESULT_WINDOW,
  normaliseConcentration,
  SEARCH_MODES,
  type SearchMode,
  SEMANTIC_WINDOW,
  SearchHit,
  SearchQuery,
  type SearchQueryInput,
  SearchResponse,
  SimilarFragrance,
  SimilarQuery,
  SimilarReasons,
  SimilarResponse,
} from './search.ts';
export { ExportPlan, ExportQuery, exportRequests, parseExportAfter, type Sort, SORTS } from './sync.ts';
export { buildOpenApiDocument } from './openapi.ts';
export { Highlight, HighlightFragment, MatchSpan } from './highlight.ts';
export {
  Brand,
  BrandDetail,
  BrandList,
  BrandSlugParams,
  BrandsQuery,
  DEFAULT_SUGGEST_LIMIT,
  MAX_SUGGEST_LIMIT,
  slugOf,
  SUGGEST_TYPES,
  SuggestQuery,
  SuggestResponse,
  Suggestion,
  type SuggestType,
  TermList,
  TermsQuery,
} from './discovery.ts';
