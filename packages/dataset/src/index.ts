export {
  assertGenerateOptions,
  AU_OFFER_SHARE,
  DATASET_AS_OF,
  MAX_COUNT,
  MISSING_SHARES,
  startCatalogueRun,
  type BrandPlan,
  type CatalogueRun,
  type GeneratedEntry,
  type GenerateOptions,
} from './catalogue.ts';
export { BRAND_COUNTRIES } from './countries.ts';
export { FeedCollector, UNMATCHED_FEED_SHARE } from './feed.ts';
export { deriveGender, NO_GENDER_SHARE } from './gender.ts';
export { generateAuRetailerFeed, generateCatalogue } from './generate.ts';
export { AU_RETAILERS, AU_SIZES, stripAccents, type Retailer } from './retailers.ts';
export { MAX_SEED } from './rng.ts';
export { CATALOGUE_FILE, FEED_FILE, writeDataset, type WriteDatasetOptions, type WrittenDataset } from './write.ts';
