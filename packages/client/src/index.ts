export {
  type BrandsQuery,
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
} from './client.ts';
export type { components, operations, paths } from './generated/openapi.ts';
