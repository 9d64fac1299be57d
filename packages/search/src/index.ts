export { createCatalogueRepository, SEARCH_FILTER_PATH, type CatalogueRepository, type FragranceWithVersion } from './catalogue.ts';
export { carriedEmbedding, carryForward, type LiveRecord } from './carry.ts';
export {
  enrichmentFingerprint,
  enrichmentInputs,
  enrichmentOf,
  enrichmentStoreOf,
  readEnrichment,
  saveEnrichment,
  type EnrichmentUpdate,
  type StoredEnrichment,
} from './enrichment-store.ts';
export {
  createCursorCodec,
  InvalidCursorError,
  MAX_CURSOR_POSITION,
  queryFingerprint,
  SearchInputError,
  type CursorCodec,
  type CursorKeys,
  type CursorState,
  type SortValueKind,
} from './cursor.ts';
export {
  aliasTargets,
  catalogueStatus,
  createVersionedIndex,
  currentIndex,
  isVersionOf,
  listVersions,
  pruneVersions,
  swapAlias,
  versionName,
  type CatalogueStatus,
} from './indices.ts';
export { EXPORT_PAGE_SIZE, exportRecords, planExport } from './export.ts';
export { IngestError, ingestCatalogue, type IngestOptions, type IngestProgress, type IngestResult, type SkippedRecord } from './ingest.ts';
export {
  FRAGRANCE_MAPPING,
  HELPER_OBJECTS,
  INDEX_SCHEMA_VERSION,
  loadingSettings,
  SEARCH_OBJECT,
  searchFields,
  toIndexDocument,
  type IndexedFragrance,
  type SearchFields,
} from './mapping.ts';
export { MAX_QUERY_WORDS, queryKey } from './normalise.ts';
export { buildSearchQuery, FACET_AGGREGATIONS, recallQuery, searchFilters, type BuiltSearch } from './query.ts';
export { buildSimilarQuery, CLOSENESS_WEIGHTS, lineName, similarFragrances, type SimilarFilters } from './similar.ts';
export {
  createSemanticSearch,
  fuseByRank,
  plannedMode,
  RRF_K,
  VECTORS_READY_SHARE,
  type QueryEmbedder,
  type SemanticSearch,
} from './semantic.ts';
export {
  EMBEDDING_DIMENSIONS,
  EMBEDDING_MAPPING,
  EMBEDDING_OBJECT,
  EMBEDDING_VECTOR_FIELD,
  embeddingInput,
  embeddingIsCurrent,
  embeddingText,
  storedVector,
  type StoredEmbedding,
} from './vectors.ts';
export { createDiscoveryRepository, type DiscoveryRepository, type TermKind } from './browse.ts';
export { editDistance, foldedTokens, highlightRecord, highlightValue, queryWords, type QueryWords } from './highlight.ts';
export { DID_YOU_MEAN_BELOW, didYouMean } from './spellcheck.ts';
export {
  buildSuggestIndex,
  buildSuggestRequest,
  SUGGEST_MAPPING,
  suggestAliasOf,
  suggestIndexOf,
  suggestQuery,
  type SuggestDocument,
} from './suggest.ts';
export { equivalentKeys, MAX_VARIANTS, queryVariants, SYNONYM_GROUPS, type QueryVariants } from './synonyms.ts';
export {
  catalogueVersions,
  checkSwap,
  DEFAULT_MAX_REJECTED_RATIO,
  DEFAULT_MIN_LIVE_RATIO,
  rollbackCatalogue,
  RollbackError,
  SwapRefusedError,
  type CatalogueVersion,
  type SwapGuard,
} from './safety.ts';
export { idSortKey, INDEX_SORT, SORT_ORDERS, sortOrderOf, type SortOrder } from './sort.ts';
export { SUMMARY_FIELDS, summaryOfHit } from './summary.ts';
