/** Latin letters that Unicode does not decompose into a base letter plus a mark. */
const LETTERS: Record<string, string> = { ø: 'o', æ: 'ae', œ: 'oe', ß: 'ss', ł: 'l', đ: 'd', þ: 'th', ı: 'i' };

/**
 * The one text folding of the project: the key under which names from different sources meet.
 * Unicode NFKD (ﬁ→fi, ＡＢＣ→ABC), combining marks stripped (è→e), lower-cased, a few
 * undecomposable Latin letters mapped (ø→o, æ→ae, œ→oe, ß→ss, …), and every run of anything that
 * is not a letter or a digit (punctuation, apostrophes, symbols, whitespace) turned into one space,
 * trimmed: "Terre d'Hermès", "TERRE D’HERMES" and "terre d hermes" share one key.
 *
 * Used for the folded `search.*` fields at ingest and every query term and filter (the
 * Elasticsearch server core has no asciifolding filter), for concentration spellings
 * ("Eau-de-Parfum" ≡ "eau de parfum"), and for matching retailer feed lines to records. It lives
 * here, the lowest package, because the contracts need it to read concentrations. Changing it
 * changes the keys of an existing index: bump the search package's INDEX_SCHEMA_VERSION with it.
 */
export function foldKey(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[øæœßłđþı]/g, (c) => LETTERS[c] ?? c)
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
