import type { McpServer } from '@modelcontextprotocol/server';
import type { SearchQuery as SearchParams } from '@fragrance/client';
import { FACETS, SearchQuery } from '@fragrance/contracts';
import { facetsText, searchText } from './format.ts';
import { registerReadTool } from './read-tool.ts';
import { checkedAgainst, type ToolContext, type ToolRunner } from './run.ts';
import { FacetsInput, FacetsOutput, SearchInput, SearchOutput, toSearchQuery, type SearchArgs } from './schemas.ts';

/** search_fragrances: every filter and sort of GET /v1/fragrances. */
export function registerSearchTool(server: McpServer, ctx: ToolContext, run: ToolRunner): void {
  registerReadTool(server, run, {
    name: 'search_fragrances',
    title: 'Search fragrances',
    description:
      'Searches the fragrance catalogue: a text query (search_mode lexical, semantic or hybrid) and/or filters on ' +
      "brand, perfumer, concentration, brand's country, release years, notes and accords (wanted or excluded), " +
      'seasons, occasions, gender, minimum rating and votes, and Australian availability; sorted by relevance, ' +
      'rating, votes, newest, oldest, name or updated; paged with limit and offset or cursor. Returns summaries ' +
      'with ids, ratings and main accords. For a described scent prefer discover_fragrances.',
    input: SearchInput,
    output: SearchOutput,
    view: 'results',
    answer: async (args) => ({
      structured: await ctx.catalogue.search(checkedQuery(args)),
      text: searchText,
    }),
  });
}

/** list_facets: the facet counts of GET /v1/fragrances, for all fragrances or those matching the filters. */
export function registerFacetsTool(server: McpServer, ctx: ToolContext, run: ToolRunner): void {
  registerReadTool(server, run, {
    name: 'list_facets',
    title: 'List facets',
    description:
      'The brands, concentrations, accords, decades, notes, seasons, occasions and genders present in the catalogue (or among fragrances matching ' +
      'the optional filters), each with the number of fragrances. Useful to pick valid filter values.',
    input: FacetsInput,
    output: FacetsOutput,
    answer: async (args) => {
      const body = await ctx.catalogue.search({
        ...checkedQuery({ ...args, limit: 1 }),
        facets: [...FACETS],
      });
      return {
        structured: {
          total: body.total,
          brands: body.facets?.brand,
          concentrations: body.facets?.concentration,
          accords: body.facets?.accord,
          decades: body.facets?.decade,
          notes: body.facets?.note,
          seasons: body.facets?.season,
          occasions: body.facets?.occasion,
          genders: body.facets?.gender,
        },
        text: facetsText,
      };
    },
  });
}

/**
 * Checks tool arguments with the data API's own SearchQuery contract (vocabulary, year order,
 * result window, cursor rules) and returns the typed query it makes of them.
 */
function checkedQuery(args: Partial<SearchArgs>): SearchParams {
  return checkedAgainst(SearchQuery, toSearchQuery(args));
}
