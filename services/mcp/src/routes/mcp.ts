import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Router, type Request, type Response } from 'express';
import { MethodNotAllowedError, requestIdOf, type Logger } from '@fragrance/http';
import type { AuthLocals } from '../auth/bearer.ts';
import type { CatalogueClient } from '../catalogue/client.ts';
import { createCatalogueMcpServer } from '../tools/server.ts';

export interface McpRouteDeps {
  catalogue: CatalogueClient;
  logger: Logger;
  /** Records when a grant was last used (the person's account page shows it); optional in tests. */
  usage?: { recordUse(grantId: string): Promise<void> };
}

/** JSON-RPC methods of a POST body, for the usage log (a body may be a batch in older revisions). */
function methodsOf(body: unknown): string[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((m) =>
    m && typeof m === 'object' && typeof (m as { method?: unknown }).method === 'string' ? [(m as { method: string }).method] : [],
  );
}

/**
 * Stateless Streamable HTTP: every POST gets a fresh server and transport, so any replica can
 * answer any request and nothing lives in memory between requests. Answers are plain JSON (no
 * SSE): every tool is a quick read, and there are no server-initiated messages to stream.
 * GET (standalone SSE stream) and DELETE (session end) have nothing to serve without sessions.
 */
export function mcpRoutes({ catalogue, logger, usage }: McpRouteDeps): Router {
  const router = Router();

  router.post('/', async (req: Request, res: Response) => {
    const { caller } = res.locals as AuthLocals;
    const requestId = requestIdOf(req);
    logger.info({ request_id: requestId, sub: caller.sub, client_id: caller.clientId, methods: methodsOf(req.body) }, 'mcp request');
    if (caller.grantId && usage) {
      // Not awaited: a lost "last used" time must never fail or slow a request.
      usage.recordUse(caller.grantId).catch((error: unknown) => logger.warn({ err: error }, 'could not record grant use'));
    }
    const server = createCatalogueMcpServer({ catalogue, logger, caller, requestId });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });

  const notAllowed = () => {
    throw new MethodNotAllowedError(['POST'], 'This MCP server is stateless: use POST.');
  };
  router.get('/', notAllowed);
  router.delete('/', notAllowed);
  return router;
}
