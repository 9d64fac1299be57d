import { CONCENTRATION_SPELLINGS, CONCENTRATIONS, foldKey, type Concentration } from '@fragrance/contracts';
import { querySpellings } from '@fragrance/vocabulary';

/**
 * Curated equivalents of the fragrance vocabulary. Each group lists spellings that mean the same
 * material; a search for any of them finds records written with any other. Applied by the
 * application (the Elasticsearch server core has no synonym filter) to `query`, `note`,
 * `exclude_note`, `accord` and `exclude_accord`. Only true equivalents belong here (oud is
 * agarwood; iris the flower is not orris root), so a filter never widens to a different material.
 * Spellings are folded with foldKey when loaded, so write them as people do.
 */
export const SYNONYM_GROUPS: readonly (readonly string[])[] = [
  ['oud', 'agarwood', 'agar wood', 'aoud', 'oudh', 'aloeswood'],
  ['orris', 'orris root', 'iris root'],
  ['tonka', 'tonka bean', 'tonka beans', 'cumaru'],
  ['ambergris', 'grey amber', 'gray amber', 'ambra grisea'],
  ['ylang ylang', 'ylang', 'ylang-ylang'],
  ['patchouli', 'patchouly'],
  ['sandalwood', 'sandal wood', 'santal', 'santalum'],
  ['vetiver', 'vetyver'],
  ['frankincense', 'olibanum'],
  ['lily of the valley', 'muguet'],
  ['pink pepper', 'pink peppercorn', 'baies roses'],
  ['benzoin', 'benjoin'],
  ['tuberose', 'tubereuse'],
  ['labdanum', 'cistus labdanum', 'rockrose'],
  ['opoponax', 'opopanax', 'sweet myrrh'],
  ['musk', 'musks'],
];

/** Folded spelling → every folded spelling of its group (itself first). */
const EQUIVALENTS: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, string[]>();
  for (const group of SYNONYM_GROUPS) {
    const keys = [...new Set(group.map(foldKey))];
    for (const key of keys) map.set(key, [key, ...keys.filter((k) => k !== key)]);
  }
  return map;
})();

/** The longest phrase in the vocabulary, in words: bounds the phrase scan of a query. */
const LONGEST = Math.max(...[...EQUIVALENTS.keys()].map((k) => k.split(' ').length));

/**
 * A value of `note`/`accord` (or their exclusions) and its equivalents, folded: the filter
 * matches a record that has any of them.
 */
export function equivalentKeys(value: string): string[] {
  const key = foldKey(value);
  return [...(EQUIVALENTS.get(key) ?? [key])];
}

/**
 * Concentration spellings recognised inside free text: the abbreviations (EDP, EDT, EDC) and the
 * spellings of more than one word ("eau de parfum"). Single words such as "cologne" or "parfum"
 * are left alone: they are as often part of a name ("Cologne Bigarade").
 */
const CONCENTRATION_IN_TEXT: ReadonlyMap<string, Concentration> = new Map(
  CONCENTRATIONS.flatMap((c) =>
    [c, ...CONCENTRATION_SPELLINGS[c]]
      .map((spelling) => foldKey(spelling))
      .filter((key) => key.includes(' ') || /^ed[ptc]$/.test(key))
      .map((key) => [key, c] as const),
  ),
);
const LONGEST_CONCENTRATION = Math.max(...[...CONCENTRATION_IN_TEXT.keys()].map((k) => k.split(' ').length));

/** Most text variants a query expands to (the original included): bounds the query's size. */
export const MAX_VARIANTS = 8;

export interface QueryVariants {
  /**
   * The folded query with each synonym phrase replaced by an equivalent, the original first, then
   * its other spellings (querySpellings: "d g" → "dg", "one million" → "1 million").
   */
  readonly texts: readonly string[];
  /** A concentration written in the query, and the rest of the query without it. */
  readonly concentration?: { readonly value: Concentration; readonly rest: string };
}

/**
 * The variants of the last queries, shared (read-only): building one search asks for the same
 * key's variants several times (recall, name tiers, the concentration's rest), and spelling them
 * out was the largest part of building a known-item search. Emptied when full: a few hundred
 * short entries at most.
 */
const RECENT_VARIANTS = new Map<string, QueryVariants>();
const RECENT_VARIANTS_MAX = 512;

/**
 * The texts a folded query stands for: every combination of equivalents of the synonym phrases
 * in it (longest phrase first, at most MAX_VARIANTS), and, when it names a concentration, the
 * query without that phrase plus the concentration as a condition.
 */
export function queryVariants(key: string): QueryVariants {
  let variants = RECENT_VARIANTS.get(key);
  if (!variants) {
    if (RECENT_VARIANTS.size >= RECENT_VARIANTS_MAX) RECENT_VARIANTS.clear();
    RECENT_VARIANTS.set(key, (variants = spellVariants(key)));
  }
  return variants;
}

/** The first word of every phrase of a table: most query words start none, and are passed at once. */
const FIRST_WORDS = new WeakMap<ReadonlyMap<string, unknown>, ReadonlySet<string>>();
function firstWordsOf(table: ReadonlyMap<string, unknown>): ReadonlySet<string> {
  let first = FIRST_WORDS.get(table);
  if (!first) FIRST_WORDS.set(table, (first = new Set([...table.keys()].map((phrase) => phrase.split(' ')[0] ?? ''))));
  return first;
}

/** Finds the longest phrase of `words` starting at `start` that `table` knows. */
function phraseAt<T>(
  words: readonly string[],
  start: number,
  longest: number,
  table: ReadonlyMap<string, T>,
): { length: number; value: T } | undefined {
  if (!firstWordsOf(table).has(words[start] ?? '')) return undefined;
  for (let length = Math.min(longest, words.length - start); length > 0; length -= 1) {
    const value = table.get(words.slice(start, start + length).join(' '));
    if (value !== undefined) return { length, value };
  }
  return undefined;
}

function spellVariants(key: string): QueryVariants {
  const words = key.split(' ').filter(Boolean);
  // Each position: the alternatives for the words from there (one word or a phrase).
  const slots: string[][] = [];
  for (let i = 0; i < words.length;) {
    const phrase = phraseAt(words, i, LONGEST, EQUIVALENTS);
    if (phrase) {
      slots.push([...phrase.value]);
      i += phrase.length;
    } else {
      slots.push([words[i] ?? '']);
      i += 1;
    }
  }
  let texts: string[][] = [[]];
  for (const slot of slots) {
    const next: string[][] = [];
    for (const prefix of texts) for (const alternative of slot) if (next.length < MAX_VARIANTS) next.push([...prefix, alternative]);
    texts = next;
  }
  const spelled = querySpellings(key);
  const out = { texts: [...new Set([...texts.map((t) => t.join(' ')), ...spelled])] };
  for (let i = 0; i < words.length; i += 1) {
    const phrase = phraseAt(words, i, LONGEST_CONCENTRATION, CONCENTRATION_IN_TEXT);
    if (phrase) {
      const rest = [...words.slice(0, i), ...words.slice(i + phrase.length)].join(' ');
      return Object.freeze({ ...out, concentration: Object.freeze({ value: phrase.value, rest }) });
    }
  }
  return Object.freeze(out);
}
