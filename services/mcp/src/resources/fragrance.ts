import { ResourceNotFoundError, ResourceTemplate, type McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { CatalogueRejectedError } from '../catalogue/catalogue.ts';
import type { ToolContext } from '../tools/run.ts';

export const FRAGRANCE_URI_TEMPLATE = 'fragrance://catalogue/{id}';

/** Logs a resource read against the user and client of the token. */
export function logRead(ctx: ToolContext, uri: string): void {
  ctx.logger.info({ request_id: ctx.requestId, sub: ctx.caller.sub, client_id: ctx.caller.clientId, resource: uri }, 'mcp resource read');
}

/** fragrance://catalogue/{id}: the full record of one fragrance (as get_fragrance), for hosts that attach resources. */
export function registerFragranceResource(server: McpServer, ctx: ToolContext): void {
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
      if (!parsed.success) throw new ResourceNotFoundError(uri.href, `Resource ${uri.href} not found: the id is not a UUID.`);
      let record: unknown;
      try {
        record = await ctx.catalogue.fragrance(parsed.data);
      } catch (error) {
        if (error instanceof CatalogueRejectedError && error.status === 404)
          throw new ResourceNotFoundError(uri.href, `Resource ${uri.href} not found.`);
        throw error;
      }
      logRead(ctx, uri.href);
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(record) }] };
    },
  );
}
