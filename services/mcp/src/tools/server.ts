import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListToolsRequestSchema, type CallToolResult, type ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { SearchQuery } from '@fragrance/contracts';
import type { Logger } from '@fragrance/http';
import type { Caller } from '../auth/verify-token.ts';
import { CatalogueRejectedError, CatalogueUnavailableError, type CatalogueClient } from '../catalogue/client.ts';
import { detailText, facetsText, searchText, summaryLine } from './format.ts';
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
import { toolCalls } from '../metrics.ts';

export const SERVER_NAME = 'fragrance-catalogue';
export const SERVER_VERSION = '1.0.0';
export const FRAGRANCE_URI_TEMPLATE = 'fragrance://catalogue/{id}';

/** Everything one MCP request's tools need: built per request (the transport is stateless). */
export interface ToolContext {
  catalogue: CatalogueClient;
  logger: Logger;
  caller: Caller;
  requestId: string;
}

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

const INSTRUCTIONS =
  'Read-only access to a catalogue of about 75,000 fragrances. Use search_fragrances to find ' +
  'fragrances (filters: brand, concentration, country, years), get_fragrance for notes, accords, ' +
  'perfumers and Australian offers, similar_fragrances for look-alikes, and list_facets to learn ' +
  'which brands, concentrations and accords exist. Ids are UUIDs from search results.';

type Structured<S extends z.ZodRawShape> = z.infer<z.ZodObject<S>>;

/**
 * The server for one request. The tool list never changes, but the SDK converts every schema to
 * JSON Schema on each tools/list (several ms of CPU for the detail schema): it is computed once
 * per process, from a server built the same way, and served from memory.
 */
export function createCatalogueMcpServer(ctx: ToolContext): McpServer {
  const server = buildServer(ctx);
  server.server.setRequestHandler(ListToolsRequestSchema, () => {
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
    { instructions: INSTRUCTIONS, capabilities: { tools: { listChanged: false }, resources: { listChanged: false } } },
  );

  /**
   * Runs one tool: catalogue problems become tool results with isError (the assistant can fix
   * its arguments or retry), and each call is logged against the user and client of the token.
   */
  async function run<S extends z.ZodRawShape>(
    tool: string,
    output: S,
    body: () => Promise<{ structured: unknown; text: (value: Structured<S>) => string }>,
  ): Promise<CallToolResult> {
    const started = performance.now();
    const log = (outcome: 'ok' | 'rejected' | 'unavailable' | 'failed', extra: Record<string, unknown> = {}) => {
      toolCalls.inc({ tool, outcome });
      ctx.logger.info(
        {
          request_id: ctx.requestId,
          sub: ctx.caller.sub,
          client_id: ctx.caller.clientId,
          tool,
          outcome,
          duration_ms: Math.round(performance.now() - started),
          ...extra,
        },
        `mcp tool ${tool} ${outcome}`,
      );
    };
    try {
      const { structured, text } = await body();
      const parsed = z.object(output).safeParse(structured);
      if (!parsed.success) {
        throw new CatalogueUnavailableError(`The catalogue answered with an unexpected shape: ${z.prettifyError(parsed.error)}`);
      }
      log('ok');
      return { content: [{ type: 'text', text: text(parsed.data) }], structuredContent: parsed.data };
    } catch (error) {
      if (error instanceof CatalogueRejectedError) {
        log('rejected', { status: error.status });
        const params = error.invalidParams.map((p) => `${p.name}: ${p.reason}`).join('; ');
        const message = error.status === 404 ? `Not found: ${error.message}` : `Invalid arguments: ${params || error.message}`;
        return { content: [{ type: 'text', text: message }], isError: true };
      }
      if (error instanceof CatalogueUnavailableError) {
        ctx.logger.error({ err: error, request_id: ctx.requestId, tool }, 'catalogue unavailable');
        log('unavailable');
        return {
          content: [
            { type: 'text', text: `The catalogue is temporarily unavailable; please retry in a moment (request id ${ctx.requestId}).` },
          ],
          isError: true,
        };
      }
      // A bug of ours: logged in full, shown without internals.
      ctx.logger.error({ err: error, request_id: ctx.requestId, tool }, 'tool failed');
      log('failed');
      return {
        content: [{ type: 'text', text: `Something went wrong on our side (request id ${ctx.requestId}).` }],
        isError: true,
      };
    }
  }

  server.registerTool(
    'search_fragrances',
    {
      title: 'Search fragrances',
      description:
        'Full-text search of the fragrance catalogue with optional filters (brand, concentration, ' +
        "brand's country, release years) and paging. Returns summaries with ids, ratings and main accords.",
      inputSchema: SearchInput,
      outputSchema: SearchOutput,
      annotations: { title: 'Search fragrances', ...READ_ONLY },
    },
    (args) =>
      run('search_fragrances', SearchOutput, async () => ({
        structured: await ctx.catalogue.get('/v1/fragrances', checkedQuery(args), ctx.requestId),
        text: searchText,
      })),
  );

  server.registerTool(
    'get_fragrance',
    {
      title: 'Get a fragrance',
      description:
        'Full record of one fragrance by id: notes (top, heart, base), accords, perfumers, seasons, ' +
        'provenance of its data and offers at Australian retailers.',
      inputSchema: GetInput,
      outputSchema: GetOutput,
      annotations: { title: 'Get a fragrance', ...READ_ONLY },
    },
    ({ id }) =>
      run('get_fragrance', GetOutput, async () => ({
        structured: await ctx.catalogue.get(`/v1/fragrances/${encodeURIComponent(id)}`, {}, ctx.requestId),
        text: detailText,
      })),
  );

  server.registerTool(
    'similar_fragrances',
    {
      title: 'Similar fragrances',
      description: 'Fragrances that smell alike (shared notes and accords) to the one with the given id, most similar first.',
      inputSchema: SimilarInput,
      outputSchema: SimilarOutput,
      annotations: { title: 'Similar fragrances', ...READ_ONLY },
    },
    ({ id, limit }) =>
      run('similar_fragrances', SimilarOutput, async () => {
        const body = (await ctx.catalogue.get(`/v1/fragrances/${encodeURIComponent(id)}/similar`, { limit }, ctx.requestId)) as object;
        return {
          structured: { id, ...body },
          text: (r) =>
            r.data.length === 0
              ? 'No similar fragrances found.'
              : [`Fragrances similar to ${id}:`, ...r.data.map((f, i) => summaryLine(f, i + 1))].join('\n'),
        };
      }),
  );

  server.registerTool(
    'list_facets',
    {
      title: 'List facets',
      description:
        'The brands, concentrations and accords present in the catalogue (or among fragrances matching ' +
        'the optional filters), each with the number of fragrances. Useful to pick valid filter values.',
      inputSchema: FacetsInput,
      outputSchema: FacetsOutput,
      annotations: { title: 'List facets', ...READ_ONLY },
    },
    (args) =>
      run('list_facets', FacetsOutput, async () => {
        const query = checkedQuery({ ...args, limit: 1 });
        const body = (await ctx.catalogue.get(
          '/v1/fragrances',
          { ...query, facets: 'brand,concentration,accord,decade' },
          ctx.requestId,
        )) as {
          total?: unknown;
          facets?: { brand?: unknown; concentration?: unknown; accord?: unknown; decade?: unknown };
        };
        return {
          structured: {
            total: body.total,
            brands: body.facets?.brand,
            concentrations: body.facets?.concentration,
            accords: body.facets?.accord,
            decades: body.facets?.decade,
          },
          text: facetsText,
        };
      }),
  );

  server.registerResource(
    'fragrance',
    new ResourceTemplate(FRAGRANCE_URI_TEMPLATE, { list: undefined }),
    {
      title: 'Fragrance record',
      description: 'The full catalogue record of one fragrance as JSON (same as get_fragrance).',
      mimeType: 'application/json',
    },
    async (uri, { id }) => {
      const value = Array.isArray(id) ? id[0] : id;
      const parsed = z.uuid().safeParse(value);
      if (!parsed.success) throw new ResourceError(`Resource ${uri.href} not found: the id is not a UUID.`);
      let record: unknown;
      try {
        record = await ctx.catalogue.get(`/v1/fragrances/${parsed.data}`, {}, ctx.requestId);
      } catch (error) {
        if (error instanceof CatalogueRejectedError && error.status === 404) {
          throw new ResourceError(`Resource ${uri.href} not found.`);
        }
        throw error;
      }
      ctx.logger.info(
        { request_id: ctx.requestId, sub: ctx.caller.sub, client_id: ctx.caller.clientId, resource: uri.href },
        'mcp resource read',
      );
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(record) }] };
    },
  );

  // registerTool/registerResource declare listChanged: true, but a stateless server has no
  // stream to announce a change on (GET /mcp is 405) and the lists never change: say so.
  server.server.registerCapabilities({ tools: { listChanged: false }, resources: { listChanged: false } });
  return server;
}

/**
 * Checks tool arguments with the data API's own SearchQuery contract (vocabulary, year order,
 * result window, cursor rules) and returns the query string to send. A violation becomes a
 * rejected request, i.e. a tool result with isError that names each bad argument.
 */
function checkedQuery(args: Partial<SearchArgs>): Record<string, string> {
  const query = toSearchQuery(args);
  const parsed = SearchQuery.safeParse(query);
  if (!parsed.success) {
    const invalid = parsed.error.issues.map((issue) => ({ name: issue.path.map(String).join('.') || 'arguments', reason: issue.message }));
    throw new CatalogueRejectedError(400, 'Invalid arguments.', 'invalid_parameter', invalid);
  }
  return query;
}

/** JSON-RPC "resource not found" (-32002 per the MCP spec). */
class ResourceError extends Error {
  readonly code = -32002;
}
