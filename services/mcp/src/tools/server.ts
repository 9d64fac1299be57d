import { EXTENSION_ID as MCP_APPS, RESOURCE_MIME_TYPE, registerAppTool } from '@modelcontextprotocol/ext-apps/server';
import { InMemoryTransport, McpServer, type ListToolsResult } from '@modelcontextprotocol/server';
import { toolSchema } from './tool-schema.ts';
import type { SearchQuery as SearchParams } from '@fragrance/client';
import { FACETS, SearchQuery } from '@fragrance/contracts';
import { registerCompareNamedPrompt } from '../prompts/compare-named.ts';
import { registerFindAlternativesPrompt } from '../prompts/find-alternatives.ts';
import { registerScentForOccasionPrompt } from '../prompts/scent-for-occasion.ts';
import { registerAppViews, viewOf } from '../apps/views.ts';
import { registerBrandResource } from '../resources/brand.ts';
import { registerFixedResources } from '../resources/fixed.ts';
import { registerFragranceResource } from '../resources/fragrance.ts';
import { registerResourceList } from '../resources/list.ts';
import { registerBrowseTools } from './browse.ts';
import { registerCompareTool } from './compare.ts';
import { registerDiscoverTool } from './discover.ts';
import { checkedAgainst, createToolRunner, READ_ONLY, type ToolContext } from './run.ts';
import { registerSuggestTool } from './suggest.ts';
import { detailText, facetsText, searchText, similarText } from './format.ts';
import {
  FacetsInput,
  FacetsOutput,
  GetInput,
  GetOutput,
  SearchInput,
  SearchOutput,
  SimilarInput,
  SimilarOutput,
  toSearchQuery,
  type SearchArgs,
} from './schemas.ts';

export const SERVER_NAME = 'fragrance-catalogue';
export const SERVER_VERSION = '1.0.0';
export { FRAGRANCE_URI_TEMPLATE } from '../resources/fragrance.ts';

export type { ToolContext } from './run.ts';

const INSTRUCTIONS =
  'Read-only access to a catalogue of about 75,000 fragrances. Use suggest to turn a partial name into ' +
  'exact names and ids, search_fragrances to find fragrances (filters: brand, perfumer, notes, accords, ' +
  'concentration, country, years, season, occasion, gender, rating, AU availability; sort orders), get_fragrance for notes, accords, ' +
  'perfumers and Australian offers, similar_fragrances for look-alikes, compare_fragrances for 2-5 side by ' +
  'side, list_brands/get_brand/list_notes/list_accords/list_perfumers to browse, and list_facets for counts. ' +
  'Use discover_fragrances when the user describes a scent ("fresh citrus for summer at the office"). ' +
  'Ids are UUIDs from search results.';

/**
 * 2026-07-28 cache fields (`ttlMs`, `cacheScope`) of the list and discover results: the lists
 * change only with a deploy and are the same for every caller, so any cache may keep them briefly.
 * (2025-era answers carry no cache fields; the SDK adds them on the 2026-07-28 wire only.)
 */
const LIST_CACHE_HINT = { ttlMs: 300_000, cacheScope: 'public' } as const;

/**
 * The server for one request. The tool list never changes, but the SDK converts every schema to
 * JSON Schema on each tools/list (several ms of CPU for the detail schema): it is computed once
 * per process, from a server built the same way, and served from memory.
 */
export function createCatalogueMcpServer(ctx: ToolContext): McpServer {
  const server = buildServer(ctx);
  server.server.setRequestHandler('tools/list', () => {
    toolList ??= listTools(ctx).catch((error: unknown) => {
      toolList = undefined;
      throw error;
    });
    return toolList;
  });
  return server;
}

let toolList: Promise<ListToolsResult> | undefined;

/** Asks a throw-away server for its tools/list over an in-memory pair (no network, no client). */
async function listTools(ctx: ToolContext): Promise<ListToolsResult> {
  const template = buildServer(ctx);
  const [ours, theirs] = InMemoryTransport.createLinkedPair();
  const answer = new Promise<ListToolsResult>((resolve, reject) => {
    ours.onmessage = (message) => {
      if ('result' in message) resolve(message.result as ListToolsResult);
      else if ('error' in message) reject(new Error(message.error.message));
    };
  });
  await template.connect(theirs);
  await ours.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  try {
    return await answer;
  } finally {
    await template.close();
  }
}

function buildServer(ctx: ToolContext): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION, title: 'Fragrance Catalogue' },
    {
      instructions: INSTRUCTIONS,
      // logging: 2025-era clients may send logging/setLevel (the SDK answers {}); the server sends no
      // notifications/message at any level (quick reads, nothing for a client's log), so every level
      // is honoured, and a stateless server could not keep a level past its request anyway.
      // extensions: MCP Apps (SEP-1865): tools name ui:// views hosts may render (src/apps/).
      capabilities: {
        logging: {},
        tools: { listChanged: false },
        resources: { listChanged: false },
        extensions: { [MCP_APPS]: { mimeTypes: [RESOURCE_MIME_TYPE] } },
      },
      cacheHints: {
        'tools/list': LIST_CACHE_HINT,
        'resources/list': LIST_CACHE_HINT,
        'resources/templates/list': LIST_CACHE_HINT,
        'prompts/list': LIST_CACHE_HINT,
        'server/discover': LIST_CACHE_HINT,
      },
    },
  );

  const run = createToolRunner(ctx);

  registerAppTool(
    server,
    'search_fragrances',
    {
      title: 'Search fragrances',
      description:
        'Searches the fragrance catalogue: a text query (search_mode lexical, semantic or hybrid) and/or filters on ' +
        "brand, perfumer, concentration, brand's country, release years, notes and accords (wanted or excluded), " +
        'seasons, occasions, gender, minimum rating and votes, and Australian availability; sorted by relevance, ' +
        'rating, votes, newest, oldest, name or updated; paged with limit and offset or cursor. Returns summaries ' +
        'with ids, ratings and main accords. For a described scent prefer discover_fragrances.',
      inputSchema: toolSchema(SearchInput),
      outputSchema: toolSchema(SearchOutput),
      annotations: { title: 'Search fragrances', ...READ_ONLY },
      _meta: viewOf('results'),
    },
    (args) =>
      run('search_fragrances', SearchOutput, async () => ({
        structured: await ctx.catalogue.search(checkedQuery(args)),
        text: searchText,
      })),
  );

  registerAppTool(
    server,
    'get_fragrance',
    {
      title: 'Get a fragrance',
      description:
        'Full record of one fragrance by id: notes (top, heart, base), accords, perfumers, seasons, ' +
        'provenance of its data and offers at Australian retailers.',
      inputSchema: toolSchema(GetInput),
      outputSchema: toolSchema(GetOutput),
      annotations: { title: 'Get a fragrance', ...READ_ONLY },
      _meta: viewOf('fragrance'),
    },
    ({ id }) =>
      run('get_fragrance', GetOutput, async () => ({
        structured: await ctx.catalogue.fragrance(id),
        text: detailText,
      })),
  );

  registerAppTool(
    server,
    'similar_fragrances',
    {
      title: 'Similar fragrances',
      description:
        'Alternatives to the fragrance with the given id: records sharing its notes and accords (rarest first) and, where computed, a close description vector; closest first, spread across houses. ' +
        'Each carries `closeness` (0..1, comparable across calls) and `reasons` (shared notes by tier, shared accords, what it adds, a one-line summary). ' +
        'Filters: other_brands (dupes from other houses), available_in_au, max_price_aud, concentration, gender, year_from/year_to, exclude_flankers (not the same line). ' +
        'Present an alternative honestly: say which notes and accords it shares and what it adds; never call it identical, a clone or "the same smell" — shared notes do not make the same scent, and closeness is a catalogue measure, not a smell test.',
      inputSchema: toolSchema(SimilarInput),
      outputSchema: toolSchema(SimilarOutput),
      annotations: { title: 'Similar fragrances', ...READ_ONLY },
      _meta: viewOf('results'),
    },
    ({ id, gender, ...params }) =>
      run('similar_fragrances', SimilarOutput, async () => {
        // The tool takes one gender; the API takes a list of them.
        const body = await ctx.catalogue.similar(id, { ...params, ...(gender ? { gender: [gender] } : {}) });
        return {
          structured: { id, ...body },
          text: (r) => similarText(id, r.data),
        };
      }),
  );

  server.registerTool(
    'list_facets',
    {
      title: 'List facets',
      description:
        'The brands, concentrations, accords, decades, notes, seasons, occasions and genders present in the catalogue (or among fragrances matching ' +
        'the optional filters), each with the number of fragrances. Useful to pick valid filter values.',
      inputSchema: toolSchema(FacetsInput),
      outputSchema: toolSchema(FacetsOutput),
      annotations: { title: 'List facets', ...READ_ONLY },
    },
    (args) =>
      run('list_facets', FacetsOutput, async () => {
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
      }),
  );

  registerDiscoverTool(server, ctx, run);
  registerSuggestTool(server, ctx, run);
  registerBrowseTools(server, ctx, run);
  registerCompareTool(server, ctx, run);

  registerFragranceResource(server, ctx);
  registerAppViews(server);
  registerBrandResource(server, ctx);
  registerFixedResources(server, ctx);
  registerResourceList(server, ctx);

  registerScentForOccasionPrompt(server);
  registerFindAlternativesPrompt(server, ctx);
  registerCompareNamedPrompt(server, ctx);

  // registerTool/registerResource/registerPrompt declare listChanged: true, but a stateless server
  // has no stream to announce a change on (GET /mcp is 405) and the lists never change: say so.
  server.server.registerCapabilities({ tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false } });
  return server;
}

/**
 * Checks tool arguments with the data API's own SearchQuery contract (vocabulary, year order,
 * result window, cursor rules) and returns the typed query it makes of them.
 */
function checkedQuery(args: Partial<SearchArgs>): SearchParams {
  return checkedAgainst(SearchQuery, toSearchQuery(args));
}
