import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { OCCASIONS, SearchHit, SearchQuery, SEASONS } from '@fragrance/contracts';
import type { FragranceClient } from '@fragrance/client';
import { summaryLine } from './format.ts';
import { registerReadTool } from './read-tool.ts';
import { checkedAgainst, type ToolRunner } from './run.ts';

export const DiscoverInput = {
  description: z
    .string()
    .min(3)
    .max(200)
    .describe('What the user is looking for, in their words: e.g. "something fresh and citrusy for summer at the office".'),
  season: z
    .array(z.enum(SEASONS))
    .max(4)
    .optional()
    .describe(`Only fragrances suiting all of these seasons: ${SEASONS.join(', ')}.`),
  occasion: z
    .array(z.enum(OCCASIONS))
    .max(7)
    .optional()
    .describe(`Only fragrances suiting all of these occasions: ${OCCASIONS.join(', ')}.`),
  concentration: z.string().min(1).max(40).optional().describe('Only this concentration (Eau de Parfum, EDT, …).'),
  exclude_note: z.array(z.string().min(1).max(100)).min(1).max(10).optional().describe('Notes the user does not want.'),
  available_in_au: z.boolean().optional().describe('Only fragrances (not) available at an Australian retailer.'),
  limit: z.number().int().min(1).max(20).default(10).describe('How many fragrances, 1..20; default 10.'),
};

const DiscoveredFragrance = SearchHit.omit({ highlight: true }).extend({
  why: z.array(z.string()).describe('Why it was ranked here: what of the description it matched.'),
});
export const DiscoverOutput = {
  description: z.string(),
  search_mode: z.string().describe('hybrid (words and meaning) or lexical while record vectors are still being computed.'),
  data: z.array(DiscoveredFragrance),
};
type DiscoverResult = z.infer<z.ZodObject<typeof DiscoverOutput>>;

/** What the tool needs of the server it is registered on (kept narrow so it fits every server layout). */
export interface DiscoverContext {
  catalogue: FragranceClient;
}

/** Why a hit was ranked: the description's words it matched (per field), or its closeness in meaning. */
export function reasons(hit: SearchHit): string[] {
  const out: string[] = [];
  for (const [field, fragments] of Object.entries(hit.highlight ?? {})) {
    const values = (fragments ?? []).map((f) => f.text);
    if (values.length > 0)
      out.push(`${field === 'notes' ? 'has the notes' : field === 'accords' ? 'has the accords' : `its ${field}`} ${values.join(', ')}`);
  }
  out.push(
    out.length === 0
      ? `close in meaning to the description (main accords: ${hit.main_accords.join(', ') || 'n/a'})`
      : `main accords: ${hit.main_accords.join(', ') || 'n/a'}`,
  );
  return out;
}

/**
 * discover_fragrances: a description in, fitting fragrances out (GET /v1/fragrances with the
 * description as query, search_mode=hybrid, highlight on), each with why it matched.
 */
export function registerDiscoverTool(server: McpServer, ctx: DiscoverContext, run: ToolRunner): void {
  registerReadTool(server, run, {
    name: 'discover_fragrances',
    title: 'Discover fragrances from a description',
    shortTitle: 'Discover fragrances',
    description:
      'Finds fragrances that fit a description of a scent, mood, season or occasion ("a smoky fragrance for winter evenings", ' +
      '"fresh and citrusy for summer at the office"), ranked by meaning and matching words together, each with why it matched. ' +
      'Use search_fragrances for names and exact filters.',
    input: DiscoverInput,
    output: DiscoverOutput,
    view: 'results',
    answer: async (args) => {
      const query: Record<string, string> = {
        query: args.description,
        search_mode: 'hybrid',
        highlight: 'true',
        limit: String(args.limit),
      };
      if (args.season?.length) query.season = args.season.join(',');
      if (args.occasion?.length) query.occasion = args.occasion.join(',');
      if (args.concentration !== undefined) query.concentration = args.concentration;
      if (args.exclude_note?.length) query.exclude_note = args.exclude_note.join(',');
      if (args.available_in_au !== undefined) query.available_in_au = String(args.available_in_au);
      const page = await ctx.catalogue.search(checkedAgainst(SearchQuery, query));
      const hits = z.array(SearchHit).safeParse(page.data);
      const structured = {
        description: args.description,
        search_mode: page.search_mode,
        data: hits.success ? hits.data.map(({ highlight: _h, ...summary }, i) => ({ ...summary, why: reasons(hits.data[i]!) })) : page.data,
      };
      return {
        structured,
        text: (r: DiscoverResult) =>
          r.data.length === 0
            ? `No fragrances fit "${r.description}".`
            : [
                `Fragrances fitting "${r.description}" (${r.search_mode}):`,
                ...r.data.map((f, i) => `${summaryLine(f, i + 1)}\n   why: ${f.why.join('; ')}`),
              ].join('\n'),
      };
    },
  });
}
