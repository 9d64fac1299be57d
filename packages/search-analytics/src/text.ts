import { foldKey, SEARCH_QUERY_MAX_CHARS } from '@fragrance/contracts';

/**
 * A query as it is counted: folded like the search fields (lower case, no accents, punctuation
 * and runs of spaces as one space) and cut to SEARCH_QUERY_MAX_CHARS characters (code points, never
 * half a surrogate pair). "Rosé  OUD!" and "rose oud" are one query. Empty for a query of
 * punctuation alone: such a search is not counted.
 */
export function searchText(query: string): string {
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
