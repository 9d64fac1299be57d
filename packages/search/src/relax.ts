import type { Client, estypes } from '@elastic/elasticsearch';
import { CONCENTRATION_SPELLINGS, CONCENTRATIONS, foldKey, type SearchQuery } from '@fragrance/contracts';
import { recallQuery, searchFilters } from './query.ts';

/**
 * A query finding fewer records than this is relaxed: words are dropped until it finds some.
 * One: a query that finds anything at all is answered as typed, so a precise query is never
 * diluted; only an empty page is worth a looser answer.
 */
export const RELAX_BELOW = 1;

/**
 * Words that say what kind of product or whom it is for, not which fragrance: the first to go
 * when a query finds nothing ("sauvage for men", "bleu perfume 100ml"). Folded phrases; the
 * concentrations' own spellings ("eau de toilette", "edp", "parfum") join them below.
 */
const PRODUCT_WORDS = [
  'for men',
  'for women',
  'for him',
  'for her',
  'for man',
  'for woman',
  'pour homme',
  'pour femme',
  'pour lui',
  'pour elle',
  'men',
  'mens',
  'women',
  'womens',
  'unisex',
  'perfume',
  'perfumes',
  'parfum',
  'cologne',
  'fragrance',
  'scent',
  'spray',
  'body spray',
  'gift set',
  'tester',
  'sample',
  'ml',
  'oz',
  'fl oz',
];
const NOISE: ReadonlySet<string> = new Set([
  ...PRODUCT_WORDS,
  ...CONCENTRATIONS.flatMap((c) => [c, ...CONCENTRATION_SPELLINGS[c]].map((spelling) => foldKey(spelling))),
]);
/** Words that carry no subject ("a", "for", "the"): dropped after words that match nothing, before any word that does. */
const FILLER: ReadonlySet<string> = new Set(
  'a an the for with of to in on at and or my me i it is something anything that which some very really nice good like smells smelling'.split(
    ' ',
  ),
);
const LONGEST_NOISE = Math.max(...[...NOISE].map((phrase) => phrase.split(' ').length));
/** A size as typed: "100ml", "3 4oz" (3.4 oz folded), "50 ml". */
const SIZE = /^\d+(?:ml|oz)$/;

/** Where the product, gender, concentration and size phrases of a folded query are (word positions). */
function productPhrases(key: string): { start: number; length: number }[] {
  const words = key.split(' ').filter(Boolean);
  const out: { start: number; length: number }[] = [];
  for (let i = 0; i < words.length;) {
    let length = 0;
    for (let n = Math.min(LONGEST_NOISE, words.length - i); n > 0 && length === 0; n--) {
      if (NOISE.has(words.slice(i, i + n).join(' '))) length = n;
    }
    const word = words[i] ?? '';
    // A number right before "ml"/"oz" is a size too.
    if (length === 0 && (SIZE.test(word) || (/^\d+$/.test(word) && /^(ml|oz|fl)$/.test(words[i + 1] ?? '')))) length = 1;
    if (length > 0) out.push({ start: i, length });
    i += Math.max(length, 1);
  }
  return out;
}

/** The query without its product, gender, concentration and size words, and those words. */
export function withoutProductWords(key: string): { kept: string[]; dropped: string[] } {
  const words = key.split(' ').filter(Boolean);
  const phrases = productPhrases(key);
  const inPhrase = (i: number) => phrases.some((p) => i >= p.start && i < p.start + p.length);
  return { kept: words.filter((_, i) => !inPhrase(i)), dropped: words.filter((_, i) => inPhrase(i)) };
}

export interface Relaxation {
  /** The folded query that found something. */
  key: string;
  /** The words left out, in query order. */
  dropped: string[];
}

/**
 * A looser form of a folded query that found fewer than RELAX_BELOW records, or undefined when
 * no word of it finds anything. Words go in order of how little they say: first words that match
 * no record at all (an alias nobody uses, a word no name has); then product, gender, concentration
 * and size words, one phrase at a time from the end; then filler words ("a", "for"); then, one at a time, the remaining word that matches fewest records, until
 * the rest finds something. Never drops the last word. Counts run with the request's filters.
 */
export async function relaxQuery(client: Client, index: string, params: SearchQuery, key: string): Promise<Relaxation | undefined> {
  const { filter, mustNot } = searchFilters(params);
  const count = async (texts: readonly string[]): Promise<number[]> => {
    const response = await client.msearch<never>(
      {
        index,
        searches: texts.flatMap((text) => [
          {},
          { query: { bool: { must: [recallQuery(text)], filter, must_not: mustNot } }, size: 0, track_total_hits: 10_000 },
        ]),
      },
      { querystring: { filter_path: 'responses.hits.total.value,responses.error' } },
    );
    return response.responses.map((r) => ('error' in r ? 0 : ((r.hits.total as estypes.SearchTotalHits | undefined)?.value ?? 0)));
  };
  const original = key.split(' ').filter(Boolean);
  let words = original;
  const answer = (): Relaxation => ({ key: words.join(' '), dropped: original.filter((w) => !words.includes(w)) });
  /** Keeps `next` as the words; true when they find enough. */
  const tryWords = async (next: string[]): Promise<boolean> => {
    if (next.length === words.length || next.length === 0) return false;
    words = next;
    return ((await count([words.join(' ')]))[0] ?? 0) >= RELAX_BELOW;
  };
  const perWord = await count(original);
  const frequency = new Map(original.map((word, i) => [word, perWord[i] ?? 0]));
  const matching = original.filter((word) => (frequency.get(word) ?? 0) > 0);
  if (matching.length === 0) return undefined;
  if (await tryWords(matching)) return answer();
  // Product words one phrase at a time, from the end ("rasasi shuhrah pour femme perfume" keeps "pour femme").
  for (const phrase of productPhrases(words.join(' ')).reverse()) {
    const at = words.join(' ').split(' ');
    const next = [...at.slice(0, phrase.start), ...at.slice(phrase.start + phrase.length)];
    if (await tryWords(next)) return answer();
  }
  if (await tryWords(words.filter((word) => !FILLER.has(word)))) return answer();
  while (words.length > 1) {
    // The rarest word goes; of equally rare ones, the last typed.
    let rarest = words.length - 1;
    words.forEach((word, i) => {
      if ((frequency.get(word) ?? 0) < (frequency.get(words[rarest] ?? '') ?? 0)) rarest = i;
    });
    if (await tryWords(words.filter((_, i) => i !== rarest))) return answer();
  }
  // One word left that matches records on its own (its count above).
  return answer();
}
