import type { AuRetailerFeedLine, FragranceDetail } from '@fragrance/contracts';
import { startCatalogueRun, type GenerateOptions } from './catalogue.ts';
import { FeedCollector } from './feed.ts';

/**
 * Catalogue records, lazily: iterate once and each record is built as it is consumed, so a
 * 75k run never sits in memory. Same options → same records, in the same order. Throws a
 * RangeError for a bad count or seed.
 */
export function generateCatalogue(options: GenerateOptions): Generator<FragranceDetail, void, undefined> {
  const run = startCatalogueRun(options); // validates now, not at the first next()
  return (function* () {
    for (const entry of run.entries) yield entry.record;
  })();
}

/**
 * The AU retailer feed that goes with `generateCatalogue(options)`: lines written the retailers'
 * way for a minority of records, plus ~3% that match no record. Generates (and drops) the
 * catalogue to know what matches; `writeDataset` does both in one pass.
 */
export function generateAuRetailerFeed(options: GenerateOptions): AuRetailerFeedLine[] {
  const run = startCatalogueRun(options);
  const feed = new FeedCollector();
  for (const entry of run.entries) feed.add(entry.feed);
  return feed.finish(run).lines;
}
