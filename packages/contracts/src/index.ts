export { InvalidParam, Problem, PROBLEM_CODES, PROBLEM_CONTENT_TYPE, ProblemCode } from './problem.ts';
export {
  AuAvailability,
  AuOffer,
  AuRetailerFeedLine,
  Concentration,
  CONCENTRATION_SPELLINGS,
  CONCENTRATIONS,
  FragranceDetail,
  FragranceSummary,
  Notes,
  PROVENANCE_SOURCES,
  ProvenanceEntry,
  ProvenanceSource,
  Rating,
} from './fragrance.ts';
export { MeResponse } from './me.ts';
export { foldKey } from './text.ts';
export {
  DEFAULT_LIMIT,
  type Facet,
  FacetBucket,
  FACETS,
  Facets,
  FragranceIdParams,
  MAX_LIMIT,
  MAX_LIST_ITEMS,
  MAX_RESULT_WINDOW,
  normaliseConcentration,
  SearchQuery,
  type SearchQueryInput,
  SearchResponse,
  SimilarQuery,
  SimilarResponse,
} from './search.ts';
export {
  EXPORT_RECORDS_PER_REQUEST,
  ExportPlan,
  ExportQuery,
  exportRequests,
  parseExportAfter,
  Rfc3339,
  type Sort,
  SORTS,
} from './sync.ts';
export { buildOpenApiDocument } from './openapi.ts';
