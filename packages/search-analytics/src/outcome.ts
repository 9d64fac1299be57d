/**
 * The catalogue's word to the gateway about a search it answered: how many records matched and
 * whether the query was relaxed. Internal: the gateway removes it before answering (and counts it).
 */
export const SEARCH_OUTCOME_HEADER = 'x-search-outcome';

export interface SearchOutcome {
  /** The answer's `total`: 0 means the search found nothing. */
  total: number;
  /** The answer said it dropped words to find something (`relaxed` present). */
  relaxed: boolean;
}

/**
 * The header's value for a search answer: `total=<n>; relaxed=<0|1>`. Takes any page with a total
 * and, when the contract has one, a `relaxed` field (present only when words were dropped).
 */
export function formatSearchOutcome(page: { total: number; relaxed?: unknown }): string {
  const relaxed = typeof page.relaxed === 'object' && page.relaxed !== null;
  return `total=${page.total}; relaxed=${relaxed ? 1 : 0}`;
}

const OUTCOME = /^total=(\d{1,15}); relaxed=([01])$/;

/** The outcome a header value states, or undefined for anything that is not one (nothing is counted then). */
export function parseSearchOutcome(value: unknown): SearchOutcome | undefined {
  if (typeof value !== 'string') return undefined;
  const match = OUTCOME.exec(value);
  if (!match) return undefined;
  return { total: Number(match[1]), relaxed: match[2] === '1' };
}
