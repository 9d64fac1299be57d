import { z } from 'zod';
import { COMMA_LIST, countryCode, integer, MAX_LIMIT, MAX_RESULT_WINDOW, rankedList, splitList, text } from './search.ts';
import { foldKey } from './text.ts';
import { NonNegativeInteger } from './numbers.ts';

/*
 * Discovery endpoints beside search: as-you-type suggestions (GET /v1/suggest) and browsing the
 * catalogue's brands, notes, accords and perfumers with their counts.
 */

/** What a suggestion can be. */
export const SUGGEST_TYPES = ['fragrance', 'brand', 'perfumer', 'note', 'accord'] as const;
export type SuggestType = (typeof SUGGEST_TYPES)[number];
export const DEFAULT_SUGGEST_LIMIT = 8;
export const MAX_SUGGEST_LIMIT = 20;

/**
 * The slug of a brand, note, accord or perfumer: its folded name (foldKey) with hyphens for
 * spaces, e.g. "Maison Francis Kurkdjian" → `maison-francis-kurkdjian`, "ylang-ylang" → `ylang-ylang`.
 */
export function slugOf(name: string): string {
  return foldKey(name).replaceAll(' ', '-');
}

/** The folded key a slug stands for (the inverse of slugOf on folded names). */
export function keyOfSlug(slug: string): string {
  return slug.replaceAll('-', ' ');
}

const SLUG = /^[\p{Ll}\p{Lo}\p{Lm}\p{N}]+(?:-[\p{Ll}\p{Lo}\p{Lm}\p{N}]+)*$/u;

export const SuggestQuery = z
  .strictObject({
    q: z
      .string()
      .max(100, { error: 'must be at most 100 characters' })
      .refine((q) => foldKey(q) !== '', { error: 'must contain a letter or digit' })
      .meta({
        description: 'What the user has typed so far; the last word matches as a prefix. Typos and accents are tolerated.',
        examples: ['terre d herm'],
      }),
    types: z
      .preprocess(
        (value: string) => (typeof value === 'string' ? [...new Set(splitList(value))] : value),
        z.array(
          z.enum(SUGGEST_TYPES, {
            error: (issue) => `unknown type ${JSON.stringify(issue.input)}; use any of ${SUGGEST_TYPES.join(', ')}`,
          }),
        ),
      )
      .optional()
      .meta({ description: `Comma-separated kinds of suggestion to return: ${SUGGEST_TYPES.join(', ')} (default all).`, ...COMMA_LIST }),
    limit: integer(1, MAX_SUGGEST_LIMIT)
      .optional()
      .meta({ description: `How many suggestions, 1..${MAX_SUGGEST_LIMIT}; default ${DEFAULT_SUGGEST_LIMIT}.` }),
  })
  .meta({ id: 'SuggestQuery' });
export type SuggestQuery = z.output<typeof SuggestQuery>;

export const Suggestion = z
  .object({
    type: z.enum(SUGGEST_TYPES),
    text: z.string().meta({ description: 'What to show: the name (a fragrance: its name alone, its brand in `brand`).' }),
    id: z.uuid().optional().meta({ description: 'A fragrance: its id (GET /fragrances/{id}).' }),
    brand: z.string().optional().meta({ description: "A fragrance: its brand's name." }),
    slug: z
      .string()
      .optional()
      .meta({ description: 'A brand, perfumer, note or accord: its slug (GET /brands/{slug}; for the others, their folded name).' }),
    count: NonNegativeInteger.optional().meta({ description: 'A brand, perfumer, note or accord: how many fragrances have it.' }),
  })
  .meta({ id: 'Suggestion' });
export type Suggestion = z.infer<typeof Suggestion>;

export const SuggestResponse = rankedList(
  'SuggestResponse',
  Suggestion,
  'Best first: match quality, then popularity (votes of the fragrance, or of all fragrances of the brand, note, …).',
);
export type SuggestResponse = z.infer<typeof SuggestResponse>;

const browsePaging = {
  search: text(100).optional().meta({
    description: 'Only names matching this text (every word, the last as a prefix; case-, accent- and typo-tolerant), best match first.',
  }),
  limit: integer(1, MAX_LIMIT)
    .optional()
    .meta({ description: `Page size, 1..${MAX_LIMIT}; default 20.` }),
  offset: integer(0, MAX_RESULT_WINDOW - 1)
    .optional()
    .meta({ description: `Items to skip; default 0. offset + limit may not exceed ${MAX_RESULT_WINDOW}.` }),
};

const windowCheck = (q: { offset?: number | undefined; limit?: number | undefined }, ctx: z.RefinementCtx) => {
  if ((q.offset ?? 0) + (q.limit ?? 20) > MAX_RESULT_WINDOW) {
    ctx.addIssue({ code: 'custom', path: ['offset'], message: `offset + limit must not exceed ${MAX_RESULT_WINDOW}` });
  }
};

export const BrandsQuery = z
  .strictObject({
    ...browsePaging,
    country: countryCode().meta({ description: 'Only brands from this country (ISO 3166-1 alpha-2, case-insensitive).', examples: ['FR'] }),
  })
  .superRefine(windowCheck)
  .meta({ id: 'BrandsQuery' });
export type BrandsQuery = z.output<typeof BrandsQuery>;

/** GET /notes, /accords, /perfumers. */
export const TermsQuery = z.strictObject(browsePaging).superRefine(windowCheck).meta({ id: 'TermsQuery' });
export type TermsQuery = z.output<typeof TermsQuery>;

export const Brand = z
  .object({
    slug: z.string().meta({ description: 'Path segment of GET /brands/{slug}.' }),
    name: z.string(),
    country: z.string().meta({ description: 'ISO 3166-1 alpha-2 country of origin.' }),
    fragrance_count: NonNegativeInteger,
    top_accords: z.array(z.string()).meta({ description: 'Its most frequent accords, at most five, most frequent first.' }),
  })
  .meta({ id: 'Brand' });
export type Brand = z.infer<typeof Brand>;

export const BrandDetail = Brand.extend({
  top_notes: z.array(z.string()).meta({ description: 'Its most frequent notes (folded spelling), at most ten.' }),
  perfumers: z.array(z.string()).meta({ description: 'Perfumers of its fragrances, most prolific first, at most ten.' }),
  year_first: z.number().int().nullable().meta({ description: 'Earliest release year of its fragrances.' }),
  year_last: z.number().int().nullable().meta({ description: 'Latest release year of its fragrances.' }),
  votes: NonNegativeInteger.meta({ description: 'Votes over all its fragrances.' }),
}).meta({ id: 'BrandDetail' });
export type BrandDetail = z.infer<typeof BrandDetail>;

export const BrandSlugParams = z
  .object({
    slug: z
      .string()
      .max(200, { error: 'must be at most 200 characters' })
      .regex(SLUG, { error: 'must be a slug: lower-case letters and digits separated by single hyphens' })
      .meta({ description: 'The brand slug from GET /brands.', examples: ['maison-francis-kurkdjian'] }),
  })
  .meta({ id: 'BrandSlugParams' });

const page = <T extends z.ZodType>(item: T, id: string) =>
  z
    .object({
      data: z.array(item),
      total: NonNegativeInteger.meta({ description: 'Exact number of matching items.' }),
      limit: z.number().int(),
      offset: z.number().int(),
    })
    .meta({ id });

export const BrandList = page(Brand, 'BrandList');
export type BrandList = z.infer<typeof BrandList>;

export const Term = z
  .object({
    slug: z.string().meta({ description: 'Folded name with hyphens; usable as the `note`, `accord` or `perfumer` filter of /fragrances.' }),
    name: z.string(),
    fragrance_count: NonNegativeInteger,
  })
  .meta({ id: 'Term', description: 'A note, accord or perfumer and how many fragrances have it.' });
export type Term = z.infer<typeof Term>;

export const TermList = page(Term, 'TermList');
export type TermList = z.infer<typeof TermList>;
