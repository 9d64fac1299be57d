import { foldKey } from '@fragrance/contracts';

/** At most this many words of a query are used: bounds the cost of fuzzy expansion. */
export const MAX_QUERY_WORDS = 10;

/** The query text as matched: folded like the indexed fields (foldKey), cut to MAX_QUERY_WORDS words. */
export function queryKey(query: string): string {
  return foldKey(query).split(' ').filter(Boolean).slice(0, MAX_QUERY_WORDS).join(' ');
}
