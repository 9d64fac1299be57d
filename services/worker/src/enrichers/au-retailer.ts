import type { AuOffer, AuRetailerFeedLine, FragranceDetail } from '@fragrance/contracts';
import { matchKey } from '@fragrance/vocabulary';
import type { FeedIndex } from '../feed.ts';
import type { Enricher, Supplied } from './types.ts';

/** True when the row's AU check is missing or older than `staleMs` at `asOf`. */
export function auCheckIsStale(row: Pick<FragranceDetail, 'au_availability'>, asOf: string, staleMs: number): boolean {
  const checked = row.au_availability.checked_at;
  return checked === null || Date.parse(asOf) - Date.parse(checked) >= staleMs;
}

/** One offer per retailer and size (the most recently seen line wins), cheapest first. */
export function offersFrom(lines: readonly AuRetailerFeedLine[]): AuOffer[] {
  const latest = new Map<string, AuRetailerFeedLine>();
  for (const line of lines) {
    const key = `${line.retailer}|${line.size_ml}`;
    const seen = latest.get(key);
    if (!seen || Date.parse(line.seen_at) > Date.parse(seen.seen_at)) latest.set(key, line);
  }
  return [...latest.values()]
    .map((l): AuOffer => ({
      retailer: l.retailer,
      url: l.url,
      price_aud: l.price_aud,
      size_ml: l.size_ml,
      in_stock: l.in_stock,
      seen_at: l.seen_at,
    }))
    .sort((a, b) => a.price_aud - b.price_aud || a.retailer.localeCompare(b.retailer) || a.size_ml - b.size_ml);
}

/** What the feed says about one row: its offers, availability (in stock anywhere) and the AUD range of in-stock offers. */
export function auValuesFor(row: FragranceDetail, feed: FeedIndex, asOf: string): Supplied {
  const offers = offersFrom(feed.byKey.get(matchKey(row.brand, row.name, row.concentration)) ?? []);
  const inStock = offers.filter((o) => o.in_stock).map((o) => o.price_aud);
  const available = inStock.length > 0;
  return {
    values: {
      au_offers: offers,
      au_availability: {
        available,
        price_min_aud: available ? Math.min(...inStock) : null,
        price_max_aud: available ? Math.max(...inStock) : null,
        checked_at: asOf,
      },
      available_in_au: available,
    },
    // A row no retailer lists gets a fresh check time, but no retailer-scrape tag.
    stamp: offers.length > 0,
  };
}

/**
 * `au_retailer_scrape`: matches the AU retailer feed to rows by folded brand + name +
 * concentration and sets offers, availability and the AUD price range. Only rows whose last
 * check is older than `staleMs` (or every row on a full run) are re-checked.
 */
export function auRetailerEnricher(options: { feed: () => Promise<FeedIndex | undefined>; staleMs: number }): Enricher {
  return {
    source: 'au_retailer_scrape',
    async enrich(rows, ctx) {
      const out = new Map<string, Supplied>();
      const feed = await options.feed();
      if (!feed) return out;
      for (const row of rows) {
        if (!ctx.full && !auCheckIsStale(row, ctx.asOf, options.staleMs)) continue;
        out.set(row.id, auValuesFor(row, feed, ctx.asOf));
      }
      return out;
    },
  };
}
