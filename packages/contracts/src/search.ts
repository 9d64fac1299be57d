import { z } from 'zod';
import { CONCENTRATION_SPELLINGS, CONCENTRATIONS, FragranceSummary, GENDERS, OCCASIONS, SEASONS, type Concentration } from './fragrance.ts';
import { Highlight } from './highlight.ts';
import { Rfc3339, SORT_DESCRIPTION, SORTS, UPDATED_SINCE_DESCRIPTION } from './sync.ts';
import { foldKey } from './text.ts';
import { NonNegativeInteger } from './numbers.ts';

export const MAX_LIMIT = 100;
export const DEFAULT_LIMIT = 20;
/** offset + limit may not pass this (Elasticsearch's result window); deeper pages use `cursor`. */
export const MAX_RESULT_WINDOW = 10_000;
export const MAX_LIST_ITEMS = 10;

/** Every accepted spelling of each concentration, keyed by its folded form. */
const CONCENTRATION_BY_SPELLING: ReadonlyMap<string, Concentration> = new Map(
  CONCENTRATIONS.flatMap((c) => [c, ...CONCENTRATION_SPELLINGS[c]].map((spelling) => [foldKey(spelling), c] as const)),
);

/** Maps any accepted spelling (case, accents, punctuation, abbreviations) onto the vocabulary. */
export function normaliseConcentration(value: string): Concentration | undefined {
  return CONCENTRATION_BY_SPELLING.get(foldKey(value));
}

/** How `query` is matched: words (lexical), meaning (semantic, kNN over sentence embeddings), or both fused (hybrid). */
export const SEARCH_MODES = ['lexical', 'semantic', 'hybrid'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];
/**
 * Chosen by bench:relevance (docs/search.md): hybrid is the default only while its known-item
 * success@1 is no lower than lexical's (measured equal, 0.869, with description P@10 0 → 0.438).
 */
export const DEFAULT_SEARCH_MODE: SearchMode = 'hybrid';
/** Semantic and hybrid searches rank the best this many of each side; their pages reach no deeper. */
export const SEMANTIC_WINDOW = 100;

export const FACETS = ['brand', 'concentration', 'accord', 'decade', 'note', 'season', 'occasion', 'gender'] as const;
export type Facet = (typeof FACETS)[number];

/*
 * Query parameters arrive as strings. Each schema below converts in a `z.preprocess` step and then
 * validates the typed value, so the OpenAPI document (generated from the input side, which for a
 * preprocess is the typed schema) carries the same type, bounds, enum and item limits that
 * validation enforces, with no second copy of them.
 */

/** Query parameters that are comma lists: `form` style without explode, i.e. `a,b`, not `x=a&x=b`. */
export const COMMA_LIST = { param: { style: 'form', explode: false } } as const;

export const integer = (min: number, max: number) =>
  z.preprocess(
    // Only plain decimal integers convert; anything else ('1e2', '0x1f', ' 5', '') stays a string
    // and fails the number check.
    (value: string) => (typeof value === 'string' && /^-?\d{1,9}$/.test(value) ? Number(value) : value),
    z
      .number({ error: 'must be an integer' })
      .int({ error: 'must be an integer' })
      .min(min, { error: `must be at least ${min}` })
      .max(max, { error: `must be at most ${max}` }),
  );

export const text = (max: number) =>
  z
    .string()
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(max, { error: `must be at most ${max} characters` });

/** A country filter: ISO 3166-1 alpha-2 in either case, upper-cased. */
export const countryCode = () =>
  z
    .string()
    .regex(/^[A-Za-z]{2}$/, { error: 'must be an ISO 3166-1 alpha-2 code such as FR' })
    .transform((c) => c.toUpperCase())
    .optional();

export const splitList = (value: string) => (typeof value === 'string' ? value.split(',').map((item) => item.trim()) : value);

/**
 * An optional comma-separated list (repeating the parameter is rejected: one value, commas
 * inside). Optional here because zod-openapi reads parameter-level fields (style) off the
 * outermost schema.
 */
const optionalList = (max: number, description: string) =>
  z
    .preprocess(
      splitList,
      z
        .array(
          z
            .string()
            .min(1, { error: 'must not contain an empty item' })
            .max(max, { error: `items must be at most ${max} characters` }),
        )
        .max(MAX_LIST_ITEMS, { error: `must list at most ${MAX_LIST_ITEMS} items` }),
    )
    .optional()
    .meta({ description, ...COMMA_LIST });

/**
 * An optional comma list of values from a closed vocabulary, matched case- and
 * accent-insensitively onto its spelling (`Date-Night` → `date night`).
 */
const optionalEnumList = <T extends readonly [string, ...string[]]>(values: T, description: string) => {
  const byKey = new Map(values.map((v) => [foldKey(v), v] as const));
  return z
    .preprocess(
      (value: string) =>
        typeof value === 'string' ? [...new Set(splitList(value).map((item) => byKey.get(foldKey(item)) ?? item))] : value,
      z
        .array(z.enum(values, { error: (issue) => `unknown value ${JSON.stringify(issue.input)}; use any of ${values.join(', ')}` }))
        .max(MAX_LIST_ITEMS, { error: `must list at most ${MAX_LIST_ITEMS} items` }),
    )
    .optional()
    .meta({ description, ...COMMA_LIST });
};

/** A decimal such as `4` or `3.75` (at most two decimals), nothing else. */
const decimal = (min: number, max: number) =>
  z.preprocess(
    (value: string) => (typeof value === 'string' && /^\d{1,3}(\.\d{1,2})?$/.test(value) ? Number(value) : value),
    z
      .number({ error: 'must be a decimal number such as 3.5' })
      .min(min, { error: `must be at least ${min}` })
      .max(max, { error: `must be at most ${max}` })
      .multipleOf(0.01, { error: 'must have at most two decimals' }),
  );

const booleanText = z.preprocess(
  (value: string) => (value === 'true' ? true : value === 'false' ? false : value),
  z.boolean({ error: 'must be true or false' }),
);

/**
 * Query parameters of GET /v1/fragrances, as strings in and typed values out. Unknown
 * parameters fail (`unrecognized_keys`). Cross-parameter rules live in the refinements below.
 */
export const SearchQuery = z
  .strictObject({
    query: z
      .string()
      .max(200, { error: 'must be at most 200 characters' })
      .transform((q) => q.trim())
      .optional()
      .meta({
        description:
          'Full text over name (boosted), brand, perfumers, notes and accords. Case- and accent-insensitive, typo-tolerant, the last word matches as a prefix. Empty means no text condition.',
        examples: ['hermes terre'],
      }),
    brand: text(100)
      .optional()
      .meta({ description: 'Exact brand name, case- and accent-insensitive.', examples: ['Hermès'] }),
    concentration: z
      .preprocess(
        // Every accepted spelling maps onto the vocabulary; anything else stays as sent and fails.
        (value: string) => (typeof value === 'string' ? (normaliseConcentration(value) ?? value) : value),
        z.enum(CONCENTRATIONS, { error: `must be one of ${CONCENTRATIONS.join(', ')} (or EDP, EDT, EDC, extrait, cologne)` }),
      )
      .optional()
      .meta({
        description: `One of ${CONCENTRATIONS.join(', ')}; case-insensitive; EDP, EDT, EDC, "extrait" and "cologne" accepted.`,
        examples: ['Eau de Parfum'],
      }),
    country: countryCode().meta({ description: "Brand's country of origin, ISO 3166-1 alpha-2, case-insensitive.", examples: ['FR'] }),
    year_from: integer(1000, 9999).optional().meta({ description: 'Earliest year released (inclusive).' }),
    year_to: integer(1000, 9999).optional().meta({ description: 'Latest year released (inclusive).' }),
    limit: integer(1, MAX_LIMIT)
      .optional()
      .meta({ description: `Page size, 1..${MAX_LIMIT}; default ${DEFAULT_LIMIT}.` }),
    // Its own bound is the window less the smallest page; offset + limit is checked below.
    offset: integer(0, MAX_RESULT_WINDOW - 1)
      .optional()
      .meta({ description: `Hits to skip; default 0. offset + limit may not exceed ${MAX_RESULT_WINDOW}: page deeper with cursor.` }),
    cursor: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,1024}$/, { error: 'is not a cursor returned by this API' })
      .optional()
      .meta({
        description:
          'Opaque `next_cursor` of the previous page: returns the page after it (search_after), at any depth. Send the same query and filters with it; not combinable with offset.',
      }),
    note: optionalList(100, 'Comma-separated notes the fragrance must all have (any of top, heart, base); case- and accent-insensitive.'),
    exclude_note: optionalList(100, 'Comma-separated notes the fragrance must have none of.'),
    accord: optionalList(100, 'Comma-separated accords the fragrance must all have.'),
    exclude_accord: optionalList(100, 'Comma-separated accords the fragrance must have none of.'),
    available_in_au: booleanText.optional().meta({ description: 'Only fragrances (not) available at an Australian retailer.' }),
    perfumer: text(100)
      .optional()
      .meta({ description: 'Exact perfumer name, case-, accent- and punctuation-insensitive.', examples: ['Jean-Claude Ellena'] }),
    season: optionalEnumList(SEASONS, `Comma-separated seasons the fragrance must all suit: ${SEASONS.join(', ')}.`),
    occasion: optionalEnumList(OCCASIONS, `Comma-separated occasions the fragrance must all suit: ${OCCASIONS.join(', ')}.`),
    gender: optionalEnumList(
      GENDERS,
      `Comma-separated genders, any of which the fragrance is marketed to: ${GENDERS.join(', ')}. Fragrances whose catalogue records no gender never match.`,
    ),
    rating_min: decimal(0, 5)
      .optional()
      .meta({ description: 'Lowest average rating (0–5, at most two decimals); records without votes never match.' }),
    votes_min: integer(0, 999_999_999).optional().meta({ description: 'Fewest votes (rating count).' }),
    highlight: booleanText.optional().meta({
      description: 'With `true`, each item carries `highlight`: where the query matched its name, brand, perfumers, notes and accords.',
    }),
    sort: z
      .enum(SORTS, { error: `must be one of ${SORTS.join(', ')}` })
      .optional()
      .meta({ description: SORT_DESCRIPTION, examples: ['rating'] }),
    updated_since: Rfc3339.optional().meta({ description: UPDATED_SINCE_DESCRIPTION, examples: ['2026-01-31T00:00:00Z'] }),
    search_mode: z
      .enum(SEARCH_MODES, { error: `must be one of ${SEARCH_MODES.join(', ')}` })
      .optional()
      .meta({
        description: `How \`query\` matches: \`lexical\` (every word matches name, brand, perfumers, notes or accords), \`semantic\` (nearest records by meaning: describe a scent, e.g. "fresh citrus for summer at the office"; filters apply inside the search) or \`hybrid\` (both, fused by reciprocal rank; name and brand matches first). Default ${DEFAULT_SEARCH_MODE}. Semantic and hybrid apply to a text query sorted by relevance and reach the best ${SEMANTIC_WINDOW} matches of each side; otherwise the search is lexical. The response's \`search_mode\` says which ran.`,
        examples: ['hybrid'],
      }),
    facets: z
      .preprocess(
        (value: string) => (typeof value === 'string' ? [...new Set(splitList(value))] : value),
        z.array(
          z.enum(FACETS, {
            error: (issue) =>
              issue.input === ''
                ? `must not contain an empty item; use any of ${FACETS.join(', ')}`
                : `unknown facet ${String(issue.input)}; use any of ${FACETS.join(', ')}`,
          }),
        ),
      )
      .optional()
      .meta({
        description: `Comma-separated facet counts to return: ${FACETS.join(', ')}.`,
        examples: [['brand', 'decade']],
        ...COMMA_LIST,
      }),
  })
  .superRefine((q, ctx) => {
    if (q.year_from !== undefined && q.year_to !== undefined && q.year_from > q.year_to) {
      ctx.addIssue({ code: 'custom', path: ['year_from'], message: 'must not be greater than year_to' });
    }
    if (q.cursor !== undefined && q.offset !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['offset'], message: 'cannot be combined with cursor' });
    }
    const offset = q.offset ?? 0;
    const limit = q.limit ?? DEFAULT_LIMIT;
    if ((q.search_mode === 'semantic' || q.search_mode === 'hybrid') && offset + limit > SEMANTIC_WINDOW) {
      ctx.addIssue({
        code: 'custom',
        path: ['offset'],
        message: `offset + limit must not exceed ${SEMANTIC_WINDOW} in ${q.search_mode} mode (it ranks the best ${SEMANTIC_WINDOW} matches); use search_mode=lexical to page deeper`,
      });
    }
    if (offset + limit > MAX_RESULT_WINDOW) {
      ctx.addIssue({
        code: 'custom',
        path: ['offset'],
        message: `offset + limit must not exceed ${MAX_RESULT_WINDOW}; page deeper with the cursor (next_cursor)`,
      });
    }
  })
  .meta({ id: 'SearchQuery' });
export type SearchQueryInput = z.input<typeof SearchQuery>;
export type SearchQuery = z.output<typeof SearchQuery>;

export const FacetBucket = z.object({ value: z.string(), count: NonNegativeInteger }).meta({ id: 'FacetBucket' });
export type FacetBucket = z.infer<typeof FacetBucket>;

export const Facets = z
  .object({
    brand: z.array(FacetBucket).optional().meta({ description: 'Top 20 brands.' }),
    concentration: z.array(FacetBucket).optional(),
    accord: z.array(FacetBucket).optional().meta({ description: 'Top 30 accords.' }),
    decade: z.array(FacetBucket).optional().meta({ description: 'Decades as "1990s", oldest first.' }),
    note: z.array(FacetBucket).optional().meta({ description: 'Top 30 notes (folded spelling, usable as `note`).' }),
    season: z.array(FacetBucket).optional(),
    occasion: z.array(FacetBucket).optional(),
    gender: z.array(FacetBucket).optional().meta({ description: 'Fragrances without a gender are not counted.' }),
  })
  .meta({ id: 'Facets', description: 'Counts over every hit of the search (not only this page).' });
export type Facets = z.infer<typeof Facets>;

/** A search hit: the summary, plus where the query matched it when `highlight=true`. */
export const SearchHit = FragranceSummary.extend({ highlight: Highlight.optional() }).meta({ id: 'SearchHit' });
export type SearchHit = z.infer<typeof SearchHit>;

export const DidYouMean = z
  .object({
    query: z.string().meta({ description: 'The query respelled with words the catalogue knows.' }),
    total: NonNegativeInteger.meta({ description: 'How many fragrances it finds (with the same filters).' }),
  })
  .meta({
    id: 'DidYouMean',
    description: 'Present when the query found little (under 3 hits) and a close spelling finds more.',
  });
export type DidYouMean = z.infer<typeof DidYouMean>;

export const Relaxed = z
  .object({
    dropped: z
      .array(z.string())
      .meta({ description: 'The query words left out (folded: lower case, no accents or punctuation), in the order typed.' }),
  })
  .meta({
    id: 'Relaxed',
    description:
      'Present when every word of the query together found nothing and a looser query answered instead: first without words naming a concentration, gender, product type or size ("eau de toilette", "for men", "perfume", "100ml"), then without words no record has, then without filler words ("a", "for"), then without the rarest words, one at a time, until something is found (never without every word). `total` and `data` are the looser query\'s.',
  });
export type Relaxed = z.infer<typeof Relaxed>;

export const SearchResponse = z
  .object({
    data: z.array(SearchHit),
    total: NonNegativeInteger.meta({ description: 'Exact number of matching fragrances.' }),
    limit: z.number().int(),
    offset: z.number().int().meta({ description: 'Offset of this page; 0 when paging by cursor.' }),
    next_cursor: z
      .string()
      .nullable()
      .meta({ description: 'Pass as `cursor` (with the same query) for the next page; null on the last page.' }),
    facets: Facets.optional(),
    did_you_mean: DidYouMean.optional(),
    relaxed: Relaxed.optional(),
    search_mode: z.enum(SEARCH_MODES).optional().meta({
      description:
        'The mode that ran, when the query had text: lexical also when semantic or hybrid was asked for but does not apply (another sort, a deeper offset) or record vectors are not computed yet. In semantic mode `total` is the number of nearest records found (at most 100, with the filters); in hybrid mode it counts the lexical matches plus those nearest records, and facets count the same set, while pages reach the best 100 of each side.',
    }),
  })
  .meta({ id: 'SearchResponse' });
export type SearchResponse = z.infer<typeof SearchResponse>;

export const FragranceIdParams = z
  .object({ id: z.uuid({ error: 'must be a UUID' }).meta({ description: 'UUID of the fragrance_master record.' }) })
  .meta({ id: 'FragranceIdParams' });

/** A price in AUD: a plain decimal with at most two decimals, above 0. */
const priceAud = z.preprocess(
  (value: string) => (typeof value === 'string' && /^\d{1,6}(\.\d{1,2})?$/.test(value) ? Number(value) : value),
  z
    .number({ error: 'must be a price in AUD such as 120 or 89.95' })
    .min(1, { error: 'must be at least 1' })
    .max(100_000, { error: 'must be at most 100000' })
    .multipleOf(0.01, { error: 'must have at most two decimals' }),
);

export const SimilarQuery = z
  .strictObject({
    limit: integer(1, 50).optional().meta({ description: 'How many, 1..50; default 10.' }),
    other_brands: booleanText.optional().meta({
      description: 'With `true`, only other houses\' fragrances (alternatives, "dupes"): never the source\'s brand.',
    }),
    available_in_au: booleanText
      .optional()
      .meta({ description: 'With `true`, only fragrances available at an Australian retailer (`false`: only those that are not).' }),
    max_price_aud: priceAud.optional().meta({
      description:
        'Only fragrances whose cheapest Australian offer (`au_availability.price_min_aud`) is at most this many AUD; so only fragrances available in Australia (with `available_in_au=false`, none).',
      examples: [120],
    }),
    concentration: SearchQuery.shape.concentration,
    gender: SearchQuery.shape.gender,
    year_from: SearchQuery.shape.year_from,
    year_to: SearchQuery.shape.year_to,
    exclude_flankers: booleanText.optional().meta({
      description:
        'With `true`, nothing of the source\'s own line: no record of its house whose name is the line\'s name or starts with it ("Sauvage" leaves out "Sauvage Elixir"; "Sauvage Elixir" leaves out "Sauvage").',
    }),
  })
  .superRefine((q, ctx) => {
    if (q.year_from !== undefined && q.year_to !== undefined && q.year_from > q.year_to) {
      ctx.addIssue({ code: 'custom', path: ['year_from'], message: 'must not be greater than year_to' });
    }
  })
  .meta({ id: 'SimilarQuery' });
export type SimilarQuery = z.output<typeof SimilarQuery>;

const noteList = (description: string) => z.array(z.string()).meta({ description });

/** Why an alternative was chosen: what it shares with the source and what it adds. */
export const SimilarReasons = z
  .object({
    shared_notes: z
      .object({
        top: noteList("Shared notes in the source's top notes, rarest first."),
        heart: noteList("Shared notes in the source's heart notes, rarest first."),
        base: noteList("Shared notes in the source's base notes, rarest first."),
      })
      .meta({ description: "Notes both records list, by the source's tier (as the source spells them)." }),
    shared_main_accords: noteList('Main accords of the source the alternative also has, rarest first.'),
    shared_accords: noteList('Other accords both have, rarest first.'),
    distinctive: noteList('The rarest shared notes and accords across the catalogue (at most 3), rarest first: what makes the likeness.'),
    adds: z
      .object({
        notes: noteList('Notes the alternative has and the source lacks (at most 5).'),
        accords: noteList('Accords the alternative has and the source lacks (at most 5).'),
      })
      .meta({ description: 'What the alternative adds to the source.' }),
    vector_similarity: z.number().min(0).max(1).nullable().meta({
      description:
        "Closeness of the two records' descriptions by their sentence vectors, 0..1 (cosine mapped as in closeness); null when either has no vector.",
    }),
    summary: z
      .string()
      .meta({ description: 'One sentence a person can read: shared notes and accords, what it adds. Never claims the two are identical.' }),
  })
  .meta({ id: 'SimilarReasons' });
export type SimilarReasons = z.infer<typeof SimilarReasons>;

export const SimilarFragrance = FragranceSummary.extend({
  closeness: z.number().min(0).max(1).meta({
    description:
      'How alike the two are, 0..1, comparable across requests: 0.7 × note/accord overlap + 0.3 × vector similarity when both records have a vector, else the overlap alone (docs/search.md).',
  }),
  reasons: SimilarReasons,
}).meta({ id: 'SimilarFragrance' });
export type SimilarFragrance = z.infer<typeof SimilarFragrance>;

/** A ranked answer without paging (similar, suggest): the items in `order`, at most `limit` of them. */
export const rankedList = <T extends z.ZodType>(id: string, item: T, order: string) =>
  z.object({ data: z.array(item).meta({ description: order }), limit: z.number().int() }).meta({ id });

export const SimilarResponse = rankedList(
  'SimilarResponse',
  SimilarFragrance,
  'Closest first, one per house before any house repeats; each with its reasons and closeness.',
);
export type SimilarResponse = z.infer<typeof SimilarResponse>;
