/**
 * @fragrance/response-cache: answers cached by the catalogue's generation. An in-process LRU
 * bounded in bytes with one computation per missing key (the catalogue's response cache and the
 * gateway's edge cache), the generation both are keyed by, and If-None-Match matching.
 */
export { createResponseCache, type CacheLookup, type CachedResponse, type ResponseCache } from './response-cache.ts';
export { matchesEtag } from './etag.ts';
export {
  bumpCatalogueGeneration,
  CATALOGUE_GENERATION_HEADER,
  catalogueGenerationKey,
  enrichmentGenerationOf,
  generationMark,
  readCatalogueGeneration,
  recordAliasTargets,
  type GenerationScope,
  type GenerationStore,
} from './generation.ts';
