import { foldKey, SEARCH_QUERY_MAX_CHARS } from '@fragrance/contracts';

/**
 * Text that foldKey leaves as it is: lower-case ASCII letters and digits, words one space apart
 * (what most shoppers type). Such a query is counted as it came, without the Unicode passes.
 */
const FOLDED_ASCII = /^[a-z0-9]+(?: [a-z0-9]+)*$/;

/**
 * A query as it is counted: folded like the search fields (lower case, no accents, punctuation
 * and runs of spaces as one space) and cut to SEARCH_QUERY_MAX_CHARS characters (code points, never
 * half a surrogate pair). "Rosé  OUD!" and "rose oud" are one query. Empty for a query of
 * punctuation alone: such a search is not counted.
 */
export function searchText(query: string): string {
  // ASCII: one code unit per character, so the cut is a slice.
  if (FOLDED_ASCII.test(query)) return query.length <= SEARCH_QUERY_MAX_CHARS ? query : query.slice(0, SEARCH_QUERY_MAX_CHARS).trimEnd();
  const folded = foldKey(query);
  if (folded.length <= SEARCH_QUERY_MAX_CHARS) return folded;
  let cut = '';
  let chars = 0;
  for (const char of folded) {
    if (chars === SEARCH_QUERY_MAX_CHARS) break;
    cut += char;
    chars += 1;
  }
  return cut.trimEnd();
}
