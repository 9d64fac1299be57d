import type { estypes } from '@elastic/elasticsearch';
import { DEFAULT_LIMIT, foldKey, type Facet, type Occasion, type SearchQuery, type Season } from '@fragrance/contracts';
import { queryFingerprint, type CursorCodec, type CursorState } from './cursor.ts';
import { queryKey } from './normalise.ts';
import { searchAfterOf, sortOrderOf, updatedSinceFilter } from './sort.ts';
import { pageFetch } from './summary.ts';
import { ACCORDS, NOTES } from '@fragrance/vocabulary';
import { equivalentKeys, queryVariants } from './synonyms.ts';

/**
 * Popularity added to relevance: weight × log10(1 + votes), i.e. +1 at 9 votes, +3 at 999,
 * +4.5 at 30k: it orders matches of similar quality, and stays far below the exact-name boost.
 */
const POPULARITY_WEIGHT = 1;

/**
 * Edits allowed per word: none up to 3 letters ("oud" must not match "old"), one from 4, two
 * from 7.
 */
const FUZZINESS = 'AUTO:4,7';

export interface BuiltSearch {
  /** The search request body (index excluded): sent as-is by the service and by the bench. */
  body: estypes.SearchRequest;
  limit: number;
  /** Offset of the page: the offset parameter, or the cursor's position. */
  offset: number;
  fingerprint: string;
}

/** Every word of `text` (one or more analysed tokens) matches search_all, with typos allowed. */
const fuzzyAll = (text: string): estypes.QueryDslQueryContainer => ({
  match: { search_all: { query: text, operator: 'and', fuzziness: FUZZINESS } },
});

/**
 * All words of `text` match somewhere (fuzzy), the last one also as a prefix ("terre d herm").
 * Each word's fuzzy query is built once: the equivalent pair of match_bool_prefix and match over
 * the whole text expanded every word but the last twice, about a sixth of Elasticsearch's time on
 * text searches (docs/search.md, cheaper queries).
 */
function allWords(text: string): estypes.QueryDslQueryContainer {
  const words = text.split(' ').filter((word) => word !== '');
  const last = words.pop() ?? '';
  const lastWord: estypes.QueryDslQueryContainer = {
    bool: { should: [{ match_bool_prefix: { search_all: { query: last } } }, fuzzyAll(last)], minimum_should_match: 1 },
  };
  return words.length === 0 ? lastWord : { bool: { must: [...words.map(fuzzyAll), lastWord] } };
}

/**
 * Recall of a folded query: all its words match, in the query as written, in any of its synonym
 * variants (agarwood for oud, …) or other spellings ("dg" for "d g"). A concentration written in
 * it (EDP, eau de toilette) is never required: the other words alone also recall, and the
 * concentration only boosts (textQuery); a query that is nothing but a concentration matches it.
 */
export function recallQuery(key: string): estypes.QueryDslQueryContainer {
  const variants = queryVariants(key);
  const rest = variants.concentration?.rest;
  const texts = rest ? [...variants.texts, ...queryVariants(rest).texts] : variants.texts;
  const should = [...new Set(texts)].map(allWords);
  if (variants.concentration && !rest) should.push({ term: { concentration: variants.concentration.value } });
  return { bool: { should, minimum_should_match: 1 } };
}

/**
 * Names of the name and brand clauses (`matched_queries` of a hit): hybrid search keeps lexical
 * hits that matched the name or brand ahead of fused ones, so known-item lookups stay first.
 */
export const NAME_SIGNAL = 'name';
/**
 * Every named clause that says the name or the brand matched (each name is reported once, so
 * every clause has its own): hybrid search keeps lexical hits carrying one ahead of fused ones.
 */
export const NAME_OR_BRAND_SIGNALS: readonly string[] = [
  'whole_name',
  'name',
  'name_phrase',
  'name_words',
  'name_prefix',
  'brand',
  'brand_misspelt',
  'brand_words',
];
/** The query (a concentration aside) is the record's whole name, or its brand and name: it names the record, whatever its words. */
export const WHOLE_NAME_SIGNAL = 'whole_name';
export const BRAND_SIGNAL = 'brand';
/**
 * Every word of the query (a concentration left aside) is in the record's name or brand, under
 * any of their spellings: the query names this record or its house. A default-mode search whose
 * best hit carries it is answered lexically (no query embedding, no kNN).
 */
export const KNOWN_ITEM_SIGNAL = 'known_item';

/** Boost of the concentration a query names ("mania edp"): orders the name's concentrations, never outranks a better name match. */
const CONCENTRATION_BOOST = 3;

/** What a record of the house the whole query names gets: above a name containing the word, below a name that is the word. */
const BRAND_IS_QUERY_BOOST = 40;
/** The whole name as typed (or brand and name, under any spelling): far above what popularity adds (≤ 5). */
const EXACT_NAME_BOOST = 30;
/**
 * A one-word query's own name over the names starting with it, in decades of votes: a name that
 * only starts with the word wins with 10 times the votes of the name itself ("melody" → Melody of
 * the Sun over an unrated Melody; "artisan" → Artisan over Artisan Pure at 3 times).
 */
export const ONE_WORD_NAME_BONUS = 1;

/** The whole name (or brand and name) one edit from the query. */
const MISSPELT_NAME_BOOST = 3;
/**
 * The whole query one edit from a house ("vourelo", "maison doulfurno"): above a name that only
 * has a word two edits off (4, what the fuzzy name clause gives), below a name with the word
 * itself (8 and more), and about a misspelt whole name (3 + 4), where popularity decides.
 */
const MISSPELT_BRAND_BOOST = 6;
/** Shorter queries are never read as a misspelt house: "dio" is no Dior (as FUZZINESS: exact up to 3 letters). */
const MISSPELT_BRAND_MIN_LENGTH = 4;

type Clause = estypes.QueryDslQueryContainer;

/** The vocabulary's notes and accords that are one word ("rose", "oud", "patchouli"), folded. */
const MATERIAL_WORDS: ReadonlySet<string> = new Set([...NOTES, ...ACCORDS].map(foldKey).filter((word) => !word.includes(' ')));

/**
 * A one-word query that is a material ("rose", "oud", "patchouli") asks for the material: a name
 * counts as a name match on a record whose whole name is the word ("Fig", "Lilac": what the
 * shopper may mean), or that has the material among its notes or accords (any of the query's
 * spellings: "agarwood" for oud), or that lists neither (nothing says otherwise). A record merely
 * named after a material ("Oud Mistral" without oud) ranks with the rest by popularity, below the
 * records that have it. Undefined for any other query.
 */
function materialClause(naming: string, spellings: readonly string[], isTheName: Clause): Clause | undefined {
  if (naming.includes(' ') || !spellings.some((spelling) => MATERIAL_WORDS.has(spelling))) return undefined;
  return {
    bool: {
      should: [
        isTheName,
        ...spellings.flatMap((text) => [{ match: { 'search.notes.text': text } }, { match: { 'search.accords.text': text } }]),
        { bool: { must_not: [{ exists: { field: 'search.notes' } }, { exists: { field: 'search.accords' } }] } },
      ],
    },
  };
}

/** Free-text relevance: every word must match somewhere (recallQuery), the name counts most. */
function textQuery(key: string): { filter: Clause[]; should: Clause[] } {
  const { concentration } = queryVariants(key);
  // The words that name the record: the query without a concentration it names.
  const naming = concentration && concentration.rest !== '' ? concentration.rest : key;
  const spellings = [...new Set([naming, ...queryVariants(naming).texts])];
  const brandIs = brandIsClause(spellings);
  const phrase = nameEither(naming, 'match_phrase');
  // One word is ambiguous ("melody", "gold", "sauvage"): every name that is it or starts with it
  // ranks alike, most popular first, the name itself only slightly ahead. More words name a record.
  const oneWord = !naming.includes(' ');
  const isTheName = isTheNameClause(spellings);
  const tiers = nameTiers(naming, spellings, phrase, oneWord, isTheName);
  const material = materialClause(naming, spellings, isTheName);
  return {
    // Recall only: how often a word occurs in all the record's text says nothing of relevance.
    filter: [recallQuery(key)],
    // Precision: the exact name outranks a name containing the words, which outranks
    // a match in brand, perfumers, notes or accords.
    should: [
      // The whole name (or brand and name) as typed: never lost to the house rule below.
      ...(oneWord ? [] : [tiers[0]!]),
      {
        bool: {
          should: oneWord ? tiers : tiers.slice(1),
          minimum_should_match: 1,
          must_not: [brandIs],
          ...(material ? { filter: [material] } : {}),
        },
      },
      { constant_score: { filter: brandIs, boost: BRAND_IS_QUERY_BOOST, _name: BRAND_SIGNAL } },
      ...misspeltBrandClause(naming, brandIs, material !== undefined),
      // The brand among the words ("jacomo paradox blue"): a flat 2, however rare the brand's words.
      // Not for one word: that is a house (brandIs) or a name, never half of both ("vanille", "anna").
      ...(oneWord ? [] : [brandWordsClause(key, spellings)]),
      otherFieldsClause(key, phrase),
      knownItemClause(spellings),
      ...(concentration ? [{ term: { concentration: { value: concentration.value, boost: CONCENTRATION_BOOST } } }] : []),
    ],
  };
}

/** One named clause: Elasticsearch reports a name once, for the last clause that carries it. */
function knownItemClause(spellings: readonly string[]): Clause {
  return {
    bool: {
      should: spellings.map((text) => ({
        multi_match: {
          query: text,
          type: 'cross_fields',
          operator: 'and',
          fields: ['search.name', 'search.name_spellings', 'search.brand.text', 'search.brand_aliases'],
        },
      })),
      _name: KNOWN_ITEM_SIGNAL,
      boost: 0,
    },
  };
}

/**
 * The query is a house ("guerlain", "ysl"): its records tie on text (their names' matches of the
 * brand word do not count) and popularity orders them.
 */
function brandIsClause(spellings: readonly string[]): Clause {
  return {
    bool: {
      should: spellings.flatMap((value) => [{ term: { 'search.brand': value } }, { term: { 'search.brand_aliases.exact': value } }]),
    },
  };
}

/**
 * The query is a house one letter off ("vourelo" for Vourellò, "maison doulfurno"): its records
 * rank as a house's, not below every record that merely recalls the words fuzzily (which score by
 * popularity alone). The first letter as typed, as for a misspelt name ("ziare" is no Biäre). Not
 * for a material ("amber" is no misspelt Ambre: material words ask for the material) nor for
 * short words.
 */
function misspeltBrandClause(naming: string, brandIs: Clause, isMaterial: boolean): Clause[] {
  if (isMaterial || naming.replaceAll(' ', '').length < MISSPELT_BRAND_MIN_LENGTH) return [];
  const fuzzy = { fuzzy: { 'search.brand': { value: naming, fuzziness: 1, prefix_length: 1 } } };
  return [
    { constant_score: { filter: { bool: { must: [fuzzy], must_not: [brandIs] } }, boost: MISSPELT_BRAND_BOOST, _name: 'brand_misspelt' } },
  ];
}

/** The record's whole name (or brand and name) is one of the query's spellings. */
function isTheNameClause(spellings: readonly string[]): Clause {
  return {
    bool: {
      should: spellings.flatMap((value) => [
        { term: { 'search.name.exact': value } },
        { term: { 'search.name_spellings.exact': value } },
        { term: { 'search.full_names': value } },
      ]),
    },
  };
}

/** A name and its other spellings count once: a name with more spellings is no better a match. */
function nameEither(naming: string, field: 'match' | 'match_phrase', options: Record<string, unknown> = {}): Clause {
  return {
    bool: {
      should: [
        { [field]: { 'search.name': { query: naming, ...options } } },
        { [field]: { 'search.name_spellings': { query: naming, ...(field === 'match' ? { operator: 'and' } : {}) } } },
      ],
    },
  };
}

function nameTier(filter: Clause, boost: number, name = NAME_SIGNAL): Clause {
  return { constant_score: { filter, boost, _name: name } };
}

/** How well the name matches, best first: the whole name, the phrase, one edit off, every word, a prefix. */
function nameTiers(naming: string, spellings: readonly string[], phrase: Clause, oneWord: boolean, isTheName: Clause): Clause[] {
  return [
    oneWord
      ? nameTier(
          { bool: { should: [isTheName, ...spellings.map((value) => ({ prefix: { 'search.name.exact': `${value} ` } }))] } },
          EXACT_NAME_BOOST,
        )
      : nameTier(isTheName, EXACT_NAME_BOOST, WHOLE_NAME_SIGNAL),
    ...(oneWord ? [nameTier(isTheName, ONE_WORD_NAME_BONUS, WHOLE_NAME_SIGNAL)] : []),
    nameTier(phrase, 8, 'name_phrase'),
    // A misspelt whole name ("giadrino", "burnt meridain"): the name it is one edit from, over the
    // names that only contain a word like it ("Brezza Giardino"). Below a phrase match, so an exact
    // name's flankers ("light blue intense") stay above a name one letter off ("night blue").
    nameTier(
      {
        bool: {
          should: spellings.flatMap((value) => [
            { fuzzy: { 'search.name.exact': { value, fuzziness: 1, prefix_length: 1 } } },
            { fuzzy: { 'search.full_names': { value, fuzziness: 1, prefix_length: 1 } } },
          ]),
          // Not the name itself: a one-word query's own name keeps only its small head start.
          must_not: [isTheName],
        },
      },
      MISSPELT_NAME_BOOST,
      'name_misspelt',
    ),
    nameTier(nameEither(naming, 'match', { operator: 'and', fuzziness: FUZZINESS, prefix_length: 1 }), 4, 'name_words'),
    nameTier({ match_bool_prefix: { 'search.name': { query: naming, operator: 'and' } } }, 2, 'name_prefix'),
  ];
}

/** The brand among the query's words. */
function brandWordsClause(key: string, spellings: readonly string[]): Clause {
  return {
    constant_score: {
      filter: {
        bool: {
          should: [{ match: { 'search.brand.text': key } }, ...spellings.map((text) => ({ match: { 'search.brand_aliases': text } }))],
        },
      },
      boost: 2,
      _name: 'brand_words',
    },
  };
}

/**
 * Perfumers, accords and notes only where the name does not match: records sharing a name
 * ("Citrus", "Amber Oud") tie on text and popularity orders them.
 */
function otherFieldsClause(key: string, namePhrase: Clause): Clause {
  return {
    bool: {
      should: [
        { match: { 'search.perfumers': { query: key, boost: 2 } } },
        { match: { 'search.accords.text': { query: key, boost: 2 } } },
        { match: { 'search.notes.text': { query: key, boost: 1.5 } } },
      ],
      must_not: [namePhrase],
    },
  };
}

/**
 * How shoppers name a season or an occasion (folded words). Seasons and occasions are keywords of
 * the record, not searchable text: the attribute leg of hybrid search matches them from these.
 */
const SEASON_WORDS: Readonly<Record<Season, readonly string[]>> = {
  spring: ['spring', 'springtime', 'spring time', 'springy'],
  summer: ['summer', 'summertime', 'summery', 'hot weather', 'hot days', 'hot summer days', 'heatwave'],
  autumn: ['autumn', 'fall', 'autumnal'],
  winter: ['winter', 'wintertime', 'wintry', 'cold weather', 'cold days', 'cold winter days'],
};
const OCCASION_WORDS: Readonly<Record<Occasion, readonly string[]>> = {
  daily: ['daily', 'every day', 'everyday', 'daily wear', 'day to day', 'all day'],
  office: ['office', 'work', 'the office', 'workplace', 'business', 'meetings'],
  leisure: ['leisure', 'weekend', 'weekends', 'casual', 'relaxed', 'relaxing'],
  sport: ['sport', 'sports', 'sporty', 'gym', 'the gym', 'workout', 'exercise'],
  evening: ['evening', 'evenings', 'night', 'nights', 'night out', 'nights out', 'nighttime', 'party', 'parties', 'clubbing'],
  'date night': ['date night', 'date', 'dates', 'romantic date', 'romantic', 'romance', 'seductive'],
  formal: ['formal', 'formal events', 'black tie', 'gala', 'wedding', 'weddings', 'ceremony'],
};
type Attribute = { kind: 'season'; value: Season } | { kind: 'occasion'; value: Occasion };
const ATTRIBUTE_PHRASES = new Map<string, Attribute>([
  ...Object.entries(SEASON_WORDS).flatMap(([value, words]) => words.map((w) => [w, { kind: 'season', value: value as Season }] as const)),
  ...Object.entries(OCCASION_WORDS).flatMap(([value, words]) =>
    words.map((w) => [w, { kind: 'occasion', value: value as Occasion }] as const),
  ),
]);
const LONGEST_PHRASE = Math.max(...[...ATTRIBUTE_PHRASES.keys()].map((p) => p.split(' ').length));
/** The first word of every phrase: a word not among them starts none (most queries name no attribute at all). */
const PHRASE_FIRST_WORDS: ReadonlySet<string> = new Set([...ATTRIBUTE_PHRASES.keys()].map((p) => p.split(' ')[0]!));

/** The seasons and occasions a folded query names, and its other words (longest phrase first: "date night" is not "night"). */
export function describedAttributes(key: string): { seasons: Season[]; occasions: Occasion[]; rest: string[] } {
  const words = key.split(' ').filter(Boolean);
  const seasons = new Set<Season>();
  const occasions = new Set<Occasion>();
  const rest: string[] = [];
  for (let i = 0; i < words.length;) {
    if (!PHRASE_FIRST_WORDS.has(words[i]!)) {
      rest.push(words[i]!);
      i += 1;
      continue;
    }
    let matched = 0;
    for (let n = Math.min(LONGEST_PHRASE, words.length - i); n > 0 && matched === 0; n--) {
      const attribute = ATTRIBUTE_PHRASES.get(words.slice(i, i + n).join(' '));
      if (!attribute) continue;
      if (attribute.kind === 'season') seasons.add(attribute.value);
      else occasions.add(attribute.value);
      matched = n;
    }
    if (matched === 0) rest.push(words[i]!);
    i += Math.max(matched, 1);
  }
  return { seasons: [...seasons], occasions: [...occasions], rest };
}

/** Whether a folded query names a season or an occasion: a description, never a known item. */
export const describesAttributes = (key: string): boolean => {
  const { seasons, occasions } = describedAttributes(key);
  return seasons.length + occasions.length > 0;
};

/** The names of the clauses a hit matched (`matched_queries` is a list, or an object with scores). */
export function matchedQueries(hit: { matched_queries?: string[] | Record<string, number> } | undefined): string[] {
  const matched = hit?.matched_queries;
  return Array.isArray(matched) ? matched : Object.keys(matched ?? {});
}

/** Popularity in the attribute leg: only orders records that match equally many attributes (at most +0.25 at 100k votes). */
const ATTRIBUTE_POPULARITY_WEIGHT = 0.05;
/** A description's word that is the record's accord itself: less than a named season or occasion (1), more than popularity. */
const OWN_ACCORD_POINT = 0.5;

/**
 * Words of a description that describe nothing ("something", "fragrance", "a", "for"): left out of
 * the attribute leg's accord words, so "a fragrance for winter" names no accord at all.
 */
const FILLER_WORDS = new Set(
  'a an and the for with in on at of to or but my me i im it its something anything fragrance fragrances perfume perfumes scent scents cologne colognes smell smells smelling like that which one some very really nice good'.split(
    ' ',
  ),
);

/**
 * The attribute leg of hybrid search, for a query naming a season or an occasion ("a smoky
 * fragrance for winter evenings", which the lexical query cannot match: every word must). When
 * the query has other words (3+ letters, not filler), a record must have one of them among its
 * accords (fuzzy: "smokey"), and scores one point per such word and per named season and
 * occasion; without such words, one point per named season and occasion. Popularity breaks
 * ties. Requiring the accord keeps the leg to the records the description is about, and to a
 * few thousand records instead of every record for winter (the whole scored and counted set cost
 * Elasticsearch most of hybrid's time: docs/search.md). Undefined for a query naming no season or
 * occasion, which the lexical and kNN legs serve alone (names, brands, notes). `matches` is the
 * same set without scoring, for counting (`total`, facets).
 */
export function attributeQuery(
  key: string,
  params: SearchQuery,
): { ranked: estypes.QueryDslQueryContainer; matches: estypes.QueryDslQueryContainer } | undefined {
  const { seasons, occasions, rest } = describedAttributes(key);
  if (seasons.length === 0 && occasions.length === 0) return undefined;
  const point = (filter: estypes.QueryDslQueryContainer): estypes.QueryDslQueryContainer => ({ constant_score: { filter } });
  const named = [
    ...seasons.map((season) => point({ term: { seasons: season } })),
    ...occasions.map((occasion) => point({ term: { occasions: occasion } })),
  ];
  // Short words ("a", "for") name no accord; each fuzzy word costs Elasticsearch time.
  const words = rest.filter((word) => word.length >= 3 && !FILLER_WORDS.has(word));
  const accordWords = words.map((word) =>
    point({ match: { 'search.accords.text': { query: word, fuzziness: FUZZINESS, prefix_length: 1 } } }),
  );
  // The accord the word names ("floral") over accords that only contain it ("white floral"), among records fitting alike.
  const ownAccords = words.map((word) => ({
    constant_score: { filter: { terms: { 'search.accords': equivalentKeys(word) } }, boost: OWN_ACCORD_POINT },
  }));
  const { filter, mustNot } = searchFilters(params);
  const bool: estypes.QueryDslBoolQuery =
    accordWords.length > 0
      ? { must: [{ bool: { should: accordWords, minimum_should_match: 1 } }], should: [...named, ...ownAccords], filter, must_not: mustNot }
      : { should: named, minimum_should_match: 1, filter, must_not: mustNot };
  return {
    ranked: {
      function_score: {
        query: { bool },
        functions: [{ field_value_factor: { field: 'rating.count', modifier: 'log1p', missing: 0 }, weight: ATTRIBUTE_POPULARITY_WEIGHT }],
        score_mode: 'sum',
        boost_mode: 'sum',
      },
    },
    matches: { bool },
  };
}

export function searchFilters(params: SearchQuery): {
  filter: estypes.QueryDslQueryContainer[];
  mustNot: estypes.QueryDslQueryContainer[];
} {
  const filter: estypes.QueryDslQueryContainer[] = [];
  const mustNot: estypes.QueryDslQueryContainer[] = [];
  if (params.brand !== undefined) filter.push({ term: { 'search.brand': foldKey(params.brand) } });
  if (params.concentration !== undefined) filter.push({ term: { concentration: params.concentration } });
  if (params.country !== undefined) filter.push({ term: { country: params.country } });
  if (params.year_from !== undefined || params.year_to !== undefined) {
    filter.push({ range: { year_released: { gte: params.year_from, lte: params.year_to } } });
  }
  if (params.available_in_au !== undefined) filter.push({ term: { available_in_au: params.available_in_au } });
  if (params.updated_since !== undefined) filter.push(updatedSinceFilter(params.updated_since));
  // Notes and accords match with their synonyms: note=oud is met by agarwood too.
  for (const note of params.note ?? []) filter.push({ terms: { 'search.notes': equivalentKeys(note) } });
  for (const accord of params.accord ?? []) filter.push({ terms: { 'search.accords': equivalentKeys(accord) } });
  if (params.exclude_note?.length) mustNot.push({ terms: { 'search.notes': params.exclude_note.flatMap(equivalentKeys) } });
  if (params.exclude_accord?.length) mustNot.push({ terms: { 'search.accords': params.exclude_accord.flatMap(equivalentKeys) } });
  if (params.perfumer !== undefined) filter.push({ term: { 'search.perfumers.exact': foldKey(params.perfumer) } });
  for (const season of params.season ?? []) filter.push({ term: { seasons: season } });
  for (const occasion of params.occasion ?? []) filter.push({ term: { occasions: occasion } });
  // One gender per record, so a list means any of them.
  if (params.gender?.length) filter.push({ terms: { gender: params.gender } });
  if (params.rating_min !== undefined) filter.push({ range: { 'rating.average': { gte: params.rating_min } } });
  if (params.votes_min !== undefined) filter.push({ range: { 'rating.count': { gte: params.votes_min } } });
  return { filter, mustNot };
}

export const FACET_AGGREGATIONS: Record<Facet, estypes.AggregationsAggregationContainer> = {
  brand: { terms: { field: 'brand', size: 20 } },
  concentration: { terms: { field: 'concentration', size: 10 } },
  accord: { terms: { field: 'accords', size: 30 } },
  decade: { histogram: { field: 'year_released', interval: 10, min_doc_count: 1 } },
  note: { terms: { field: 'search.notes', size: 30 } },
  season: { terms: { field: 'seasons', size: 10 } },
  occasion: { terms: { field: 'occasions', size: 10 } },
  gender: { terms: { field: 'gender', size: 3 } },
};

/**
 * Turns validated search parameters into one Elasticsearch request. Hits are ordered by `sort`
 * (see sort.ts; every order is total, so cursors are stable): by default with `query` by
 * relevance plus a small popularity term, then votes, then id; without it, by votes then id. A cursor is verified (signature, query,
 * sort value types, position) by `cursors` before anything is built; a bad one throws
 * InvalidCursorError.
 */
export function buildSearchQuery(
  params: SearchQuery,
  cursors: CursorCodec,
  /** The folded words to match: the query's own (queryKey), or fewer when relaxed (relax.ts). */
  key = params.query === undefined ? '' : queryKey(params.query),
): BuiltSearch {
  const limit = params.limit ?? DEFAULT_LIMIT;
  const fingerprint = queryFingerprint(params);
  const order = sortOrderOf(params.sort, key !== '');
  const cursor: CursorState | undefined = params.cursor === undefined ? undefined : cursors.decode(params.cursor, fingerprint, order.kinds);
  const { filter, mustNot } = searchFilters(params);

  let query: estypes.QueryDslQueryContainer;
  if (key) {
    const text = textQuery(key);
    query = {
      function_score: {
        query: { bool: { should: text.should, filter: [...text.filter, ...filter], must_not: mustNot } },
        functions: [{ field_value_factor: { field: 'rating.count', modifier: 'log1p', missing: 0 }, weight: POPULARITY_WEIGHT }],
        score_mode: 'sum',
        boost_mode: 'sum',
      },
    };
  } else {
    query = filter.length || mustNot.length ? { bool: { filter, must_not: mustNot } } : { match_all: {} };
  }

  const body: estypes.SearchRequest = {
    query,
    sort: [...order.sort],
    size: limit,
    track_total_hits: true,
    ...pageFetch(Boolean(params.highlight && key)),
  };
  if (cursor) body.search_after = searchAfterOf(cursor.after);
  else if (params.offset) body.from = params.offset;
  if (params.facets?.length) {
    body.aggs = Object.fromEntries(params.facets.map((facet) => [facet, FACET_AGGREGATIONS[facet]]));
  }
  return { body, limit, offset: cursor ? cursor.position : (params.offset ?? 0), fingerprint };
}
