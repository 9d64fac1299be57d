import { EXTENSION_ID as MCP_APPS, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { InMemoryTransport, McpServer, type ListToolsResult } from '@modelcontextprotocol/server';
import { registerCompareNamedPrompt } from '../prompts/compare-named.ts';
import { registerFindAlternativesPrompt } from '../prompts/find-alternatives.ts';
import { registerScentForOccasionPrompt } from '../prompts/scent-for-occasion.ts';
import { registerAppViews } from '../apps/views.ts';
import { registerBrandResource } from '../resources/brand.ts';
import { registerFixedResources } from '../resources/fixed.ts';
import { registerFragranceResource } from '../resources/fragrance.ts';
import { registerResourceList } from '../resources/list.ts';
import { registerBrowseTools } from './browse.ts';
import { registerCompareTool } from './compare.ts';
import { registerDiscoverTool } from './discover.ts';
import { registerGetTool, registerSimilarTool } from './fragrance.ts';
import { createToolRunner, type ToolContext } from './run.ts';
import { registerFacetsTool, registerSearchTool } from './search.ts';
import { registerSuggestTool } from './suggest.ts';

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

/** The server and every tool, resource and prompt it offers, in the order tools/list names them. */
function buildServer(ctx: ToolContext): McpServer {
  const server = newServer();
  registerTools(server, ctx);
  registerResources(server, ctx);
  registerPrompts(server, ctx);
  // registerTool/registerResource/registerPrompt declare listChanged: true, but a stateless server
  // has no stream to announce a change on (GET /mcp is 405) and the lists never change: say so.
  server.server.registerCapabilities({ tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false } });
  return server;
}

function newServer(): McpServer {
  return new McpServer(
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
}

function registerTools(server: McpServer, ctx: ToolContext): void {
  const run = createToolRunner(ctx);
  registerSearchTool(server, ctx, run);
  registerGetTool(server, ctx, run);
  registerSimilarTool(server, ctx, run);
  registerFacetsTool(server, ctx, run);
  registerDiscoverTool(server, ctx, run);
  registerSuggestTool(server, ctx, run);
  registerBrowseTools(server, ctx, run);
  registerCompareTool(server, ctx, run);
}

function registerResources(server: McpServer, ctx: ToolContext): void {
  registerFragranceResource(server, ctx);
  registerAppViews(server);
  registerBrandResource(server, ctx);
  registerFixedResources(server, ctx);
  registerResourceList(server, ctx);
}

function registerPrompts(server: McpServer, ctx: ToolContext): void {
  registerScentForOccasionPrompt(server);
  registerFindAlternativesPrompt(server, ctx);
  registerCompareNamedPrompt(server, ctx);
}
