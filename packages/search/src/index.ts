export { createCatalogueRepository, SEARCH_FILTER_PATH, type CatalogueRepository, type FragranceWithVersion } from './catalogue.ts';
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
export { IngestError, ingestCatalogue, type IngestOptions, type IngestProgress, type IngestResult, type SkippedRecord } from './ingest.ts';
export {
  FRAGRANCE_MAPPING,
  INDEX_SCHEMA_VERSION,
  loadingSettings,
  SEARCH_OBJECT,
  searchFields,
  SUMMARY_FIELDS,
  toIndexDocument,
  type IndexedFragrance,
  type SearchFields,
} from './mapping.ts';
export { MAX_QUERY_WORDS, queryKey } from './normalise.ts';
export { buildSearchQuery, FACET_AGGREGATIONS, type BuiltSearch } from './query.ts';
export { buildSimilarQuery } from './similar.ts';
export {
  bumpCatalogueGeneration,
  catalogueGenerationKey,
  readCatalogueGeneration,
  type GenerationScope,
  type GenerationStore,
} from './generation.ts';
