import type { McpServer } from '@modelcontextprotocol/server';
import { detailText, similarText } from './format.ts';
import { registerReadTool } from './read-tool.ts';
import type { ToolContext, ToolRunner } from './run.ts';
import { GetInput, GetOutput, SimilarInput, SimilarOutput } from './schemas.ts';

/** get_fragrance: one full record by id (GET /v1/fragrances/{id}). */
export function registerGetTool(server: McpServer, ctx: ToolContext, run: ToolRunner): void {
  registerReadTool(server, run, {
    name: 'get_fragrance',
    title: 'Get a fragrance',
    description:
      'Full record of one fragrance by id: notes (top, heart, base), accords, perfumers, seasons, ' +
      'provenance of its data and offers at Australian retailers.',
    input: GetInput,
    output: GetOutput,
    view: 'fragrance',
    answer: async ({ id }) => ({
      structured: await ctx.catalogue.fragrance(id),
      text: detailText,
    }),
  });
}

/** similar_fragrances: alternatives to one fragrance, with why (GET /v1/fragrances/{id}/similar). */
export function registerSimilarTool(server: McpServer, ctx: ToolContext, run: ToolRunner): void {
  registerReadTool(server, run, {
    name: 'similar_fragrances',
    title: 'Similar fragrances',
    description:
      'Alternatives to the fragrance with the given id: records sharing its notes and accords (rarest first) and, where computed, a close description vector; closest first, spread across houses. ' +
      'Each carries `closeness` (0..1, comparable across calls) and `reasons` (shared notes by tier, shared accords, what it adds, a one-line summary). ' +
      'Filters: other_brands (dupes from other houses), available_in_au, max_price_aud, concentration, gender, year_from/year_to, exclude_flankers (not the same line). ' +
      'Present an alternative honestly: say which notes and accords it shares and what it adds; never call it identical, a clone or "the same smell" — shared notes do not make the same scent, and closeness is a catalogue measure, not a smell test.',
    input: SimilarInput,
    output: SimilarOutput,
    view: 'results',
    answer: async ({ id, gender, ...params }) => {
      // The tool takes one gender; the API takes a list of them.
      const body = await ctx.catalogue.similar(id, { ...params, ...(gender ? { gender: [gender] } : {}) });
      return {
        structured: { id, ...body },
        text: (r) => similarText(id, r.data),
      };
    },
  });
}
