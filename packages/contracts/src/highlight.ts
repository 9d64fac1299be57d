import { z } from 'zod';
import { NonNegativeInteger } from './numbers.ts';

/** One matched word inside a value: `value.slice(start, end)` in JavaScript string indices. */
export const MatchSpan = z
  .object({
    start: NonNegativeInteger.meta({ description: 'Offset of the first matched character, in UTF-16 code units.' }),
    end: NonNegativeInteger.meta({ description: 'Offset just past the last matched character, in UTF-16 code units.' }),
  })
  .meta({ id: 'MatchSpan' });
export type MatchSpan = z.infer<typeof MatchSpan>;

/** A field value (plain text, as stored: never HTML) and where the query matched it. */
export const HighlightFragment = z
  .object({
    text: z.string().meta({ description: 'The whole value as plain text; render it escaped.' }),
    matches: z.array(MatchSpan).min(1).meta({ description: 'Matched words, in order, not overlapping.' }),
  })
  .meta({ id: 'HighlightFragment' });
export type HighlightFragment = z.infer<typeof HighlightFragment>;

export const HIGHLIGHT_FIELDS = ['name', 'brand', 'perfumers', 'notes', 'accords'] as const;
export type HighlightField = (typeof HIGHLIGHT_FIELDS)[number];

export const Highlight = z
  .object(
    Object.fromEntries(HIGHLIGHT_FIELDS.map((field) => [field, z.array(HighlightFragment).optional()])) as Record<
      HighlightField,
      z.ZodOptional<z.ZodArray<typeof HighlightFragment>>
    >,
  )
  .meta({
    id: 'Highlight',
    description:
      'Where the query (with its synonyms, typos and the last word as a prefix) matched this fragrance: each field that matched lists its matching values with the word offsets. Fields without a match are absent. Matching is case- and accent-insensitive, so a match may differ from the query in spelling.',
  });
export type Highlight = z.infer<typeof Highlight>;
