/** Latin letters that Unicode does not decompose into a base letter plus a mark. */
const LETTERS: Record<string, string> = { ø: 'o', æ: 'ae', œ: 'oe', ß: 'ss', ł: 'l', đ: 'd', þ: 'th', ı: 'i' };

/**
 * Folds text for matching: Unicode NFKD, combining marks stripped, a few undecomposable Latin
 * letters mapped (ø→o, ß→ss, …), lower-cased, whitespace
 * collapsed. The Elasticsearch server core has no asciifolding filter, so ingest stores folded
 * copies of searchable fields and every query term is folded the same way here.
 */
export function foldText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[øæœßłđþı]/g, (c) => LETTERS[c] ?? c)
    .replace(/\s+/gu, ' ')
    .trim();
}

/**
 * foldText with every run of punctuation turned into one space: the key under which names from
 * different sources (a retailer feed, a user's filter) meet ("Eau-de-Parfum" ≡ "eau de parfum").
 */
export function foldKey(text: string): string {
  return foldText(text)
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
