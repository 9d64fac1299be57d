import type { AuRetailerFeedLine } from '@fragrance/contracts';
import { CONCENTRATIONS, foldKey } from '@fragrance/contracts';
import type { CatalogueRun } from './catalogue.ts';
import { DATASET_AS_OF } from './catalogue.ts';
import { brandName, fragranceName } from './names.ts';
import { AU_RETAILERS, feedLineFor, pickOfferSize, roundPrice } from './retailers.ts';
import { matchKey } from '@fragrance/vocabulary';
import { BRAND_COUNTRIES } from './countries.ts';

/** Share of feed lines that match no catalogue record (the enricher must report them). */
export const UNMATCHED_FEED_SHARE = 0.03;
const AS_OF_MS = Date.parse(DATASET_AS_OF);

/**
 * Collects the feed lines of a catalogue run as its records go by, then adds the lines that
 * match nothing and orders everything the way a feed comes: retailer by retailer.
 * Holds only feed lines (~13% of the record count), never the records themselves.
 */
export class FeedCollector {
  readonly #byRetailer = new Map<string, AuRetailerFeedLine[]>(AU_RETAILERS.map((r) => [r.name, []]));
  #matched = 0;

  add(lines: readonly AuRetailerFeedLine[]): void {
    for (const line of lines) {
      this.#byRetailer.get(line.retailer)?.push(line);
      this.#matched++;
    }
  }

  /** Call once the run's records are all generated: unmatched lines need every record's key. */
  finish(run: CatalogueRun): { lines: AuRetailerFeedLine[]; matched: number; unmatched: number } {
    const rng = run.feedRng;
    // unmatched / (matched + unmatched) ≈ UNMATCHED_FEED_SHARE
    const unmatched = Math.round((this.#matched * UNMATCHED_FEED_SHARE) / (1 - UNMATCHED_FEED_SHARE));
    const brandKeys = new Set(run.brands.map((b) => foldKey(b.name)));
    for (let i = 0; i < unmatched; i++) {
      const retailer = rng.pick(AU_RETAILERS);
      const concentration = rng.pick(CONCENTRATIONS);
      let brand: string;
      if (rng.chance(0.6) && run.brands.length > 0) {
        brand = rng.pick(run.brands).name; // a known house, a product the catalogue lacks
      } else {
        do brand = brandName(rng, rng.pick(BRAND_COUNTRIES)[0]);
        while (brandKeys.has(foldKey(brand)));
      }
      let name = fragranceName(rng);
      while (run.keys.has(matchKey(brand, name, concentration))) name = fragranceName(rng);
      const size = pickOfferSize(rng, concentration);
      const price = roundPrice(rng.weighted([90, 160, 260, 420], [25, 35, 28, 12]) * Math.pow(size / 100, 0.8));
      const line = feedLineFor(
        rng,
        retailer,
        { brand, name, concentration },
        size,
        price,
        AS_OF_MS - Math.floor(rng.float() * 7 * 86_400_000),
      );
      this.#byRetailer.get(retailer.name)?.push(line);
    }
    const lines: AuRetailerFeedLine[] = [];
    for (const retailer of AU_RETAILERS) lines.push(...rng.shuffle(this.#byRetailer.get(retailer.name) ?? []));
    return { lines, matched: this.#matched, unmatched };
  }
}
