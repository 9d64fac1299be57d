import { foldText } from '@fragrance/contracts';

/**
 * The key searchable text is indexed and queried under: folded (case, accents) and with
 * punctuation turned into spaces, so "Terre d'Hermès", "terre d hermes" and "TERRE D’HERMES"
 * all become "terre d hermes". Applied identically at ingest and at query time.
 */
export function searchKey(text: string): string {
  return foldText(text)
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** At most this many words of a query are used: bounds the cost of fuzzy expansion. */
export const MAX_QUERY_WORDS = 10;

/** The query text as matched: its search key, cut to MAX_QUERY_WORDS words. */
export function queryKey(query: string): string {
  return searchKey(query).split(' ').filter(Boolean).slice(0, MAX_QUERY_WORDS).join(' ');
}
