export {
  type BrandsQuery,
  type ExportQuery,
  type ClientOptions,
  createFragranceClient,
  FragranceApiError,
  type FragranceClient,
  type FragranceDetail,
  type RetryOptions,
  type SearchHit,
  type SearchQuery,
  type SearchResponse,
  type SimilarQuery,
  type SuggestQuery,
  type TermsQuery,
  type UsageQuery,
  type UsageResponse,
} from './client.ts';
export type { components, operations, paths } from './generated/openapi.ts';
