export { MAX_COUNT } from './catalogue.ts';
export { generateAuRetailerFeed, generateCatalogue } from './generate.ts';
export { MAX_SEED } from './rng.ts';
export { writeDataset } from './write.ts';
