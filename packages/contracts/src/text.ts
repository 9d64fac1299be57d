/**
 * Folds text for matching: Unicode NFD, combining marks stripped, lower-cased, whitespace
 * collapsed. The Elasticsearch server core has no asciifolding filter, so ingest stores folded
 * copies of searchable fields and every query term is folded the same way here.
 */
export function foldText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/\s+/gu, ' ')
    .trim();
}
