import { SEARCH_USAGE_MAX_DAYS } from '@fragrance/contracts';

/**
 * Redis key names of the search counters, under the gateway's prefix (default `fcs:`). Per quota
 * day: the set of owners who searched, and per owner a hash of totals and three sorted sets of
 * query texts (member: the folded text; score: searches). The owner's name is URI-encoded in the
 * key (no `:` or spaces); the set of owners holds it as it is.
 */
export const searchAnalyticsKeys = (prefix: string) => {
  const of = (day: string, owner: string, what: string) => `${prefix}search:${day}:${encodeURIComponent(owner)}:${what}`;
  return {
    /** Set: the owners who searched that day (what `ops search report` lists without --owner). */
    owners: (day: string) => `${prefix}search:${day}:owners`,
    /** Hash: `searches`, `zero_results`, `relaxed`: exact counts of the day. */
    totals: (day: string, owner: string) => of(day, owner, 'totals'),
    /** Sorted set: every search's text. */
    top: (day: string, owner: string) => of(day, owner, 'top'),
    /** Sorted set: the texts of searches that found nothing. */
    zeroResults: (day: string, owner: string) => of(day, owner, 'zero'),
    /** Sorted set: the texts of searches that were relaxed. */
    relaxed: (day: string, owner: string) => of(day, owner, 'relaxed'),
  };
};

/**
 * Most texts a sorted set holds. A write that takes it past this trims it to the
 * SEARCH_ANALYTICS_KEEP most frequent, so it never holds more (and its memory stays bounded); the
 * room between the two lets a new text that is searched often climb above the ones trimmed.
 */
export const SEARCH_ANALYTICS_CAP = 500;
/** What a trim leaves: the most frequent texts, at least as many as a report lists (SEARCH_USAGE_MAX_LIMIT). */
export const SEARCH_ANALYTICS_KEEP = 250;
/**
 * How long a day's counters live after their last write: one day more than the days served, so
 * every day GET /v1/usage/searches and `ops search report` accept is still whole.
 */
export const SEARCH_ANALYTICS_TTL_SECONDS = (SEARCH_USAGE_MAX_DAYS + 1) * 86_400;
