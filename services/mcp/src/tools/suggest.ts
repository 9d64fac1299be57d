import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { MAX_SUGGEST_LIMIT, SUGGEST_TYPES, SuggestQuery, SuggestResponse } from '@fragrance/contracts';
import { registerReadTool } from './read-tool.ts';
import { forwarded } from './forwarded.ts';
import type { ToolContext, ToolRunner } from './run.ts';

export const SuggestInput = {
  q: z
    .string()
    .min(1)
    .max(100)
    .describe('What the user has typed so far; the last word matches as a prefix, typos and accents are tolerated.'),
  types: z
    .array(z.enum(SUGGEST_TYPES))
    .min(1)
    .optional()
    .describe(`Kinds of suggestion to return: ${SUGGEST_TYPES.join(', ')} (default all).`),
  limit: z.number().int().min(1).max(MAX_SUGGEST_LIMIT).default(8).describe(`How many suggestions, 1..${MAX_SUGGEST_LIMIT}; default 8.`),
};
export const SuggestOutput = SuggestResponse.shape;

/** suggest: as-you-type names of fragrances, brands, perfumers, notes and accords (GET /v1/suggest). */
export function registerSuggestTool(server: McpServer, ctx: ToolContext, run: ToolRunner): void {
  registerReadTool(server, run, {
    name: 'suggest',
    title: 'Suggest names',
    description:
      'As-you-type suggestions for a partial name: fragrances (with id and brand), brands, perfumers, notes and accords ' +
      '(with slug and how many fragrances have them). Use it to turn what a user half remembers into exact names and ids ' +
      'for the other tools.',
    input: SuggestInput,
    output: SuggestOutput,
    answer: forwarded(
      SuggestQuery,
      (query) => ctx.catalogue.suggest(query),
      (r, args) =>
        r.data.length === 0
          ? `No suggestions for "${args.q}".`
          : [
              `Suggestions for "${args.q}":`,
              ...r.data.map((s) =>
                s.type === 'fragrance'
                  ? `- fragrance: ${s.text} by ${s.brand ?? '?'} [id ${s.id ?? '?'}]`
                  : `- ${s.type}: ${s.text} (${s.count ?? 0} fragrances; slug ${s.slug ?? '?'})`,
              ),
            ].join('\n'),
    ),
  });
}
