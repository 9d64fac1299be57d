import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type McpHandlerRequestOptions,
  type McpRequestContext,
} from '@modelcontextprotocol/server';
import { Router, type Request, type Response } from 'express';
import { MethodNotAllowedError, requestIdOf, type Logger } from '@fragrance/http';
import type { AuthLocals } from '../auth/bearer.ts';
import type { Caller } from '../auth/verify-token.ts';
import type { Catalogue } from '../catalogue/catalogue.ts';
import { runAsRequest } from '../request-context.ts';
import { createCatalogueMcpServer } from '../tools/server.ts';

export interface McpRouteDeps {
  catalogue: Catalogue;
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
 * A JSON answer sent whole, with its length. The SDK's Node adapter writes the head with the first
 * body chunk and ends the (chunked) body later: an instance killed in between leaves a response
 * started and cut, which no load balancer may replay (the chaos bench lost a tool call so). Whole,
 * it is either not sent at all (HAProxy replays the read-only call elsewhere) or sent complete.
 * Event streams pass through as they are.
 */
async function sentWhole(response: globalThis.Response): Promise<globalThis.Response> {
  if (!response.body || !response.headers.get('content-type')?.startsWith('application/json')) return response;
  const body = await response.arrayBuffer();
  const headers = new Headers(response.headers);
  headers.set('content-length', String(body.byteLength));
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

/** What the bearer middleware verified, plus this request's id, as the SDK hands it to the server factory. */
type RequestAuth = AuthInfo & { extra: { caller: Caller; requestId: string } };

/**
 * Stateless Streamable HTTP for both protocol eras, one server per request from one factory:
 * - 2026-07-28 (a request carrying the per-request `_meta` envelope) goes to the SDK's
 *   `createMcpHandler`, which owns that revision's rules (`server/discover`, header/envelope
 *   agreement, cache fields on list/read results);
 * - 2025-era requests (`initialize` handshake, no envelope) get the SDK's stateless transport
 *   with JSON answers, as before.
 * Any replica answers any request and nothing lives in memory between requests. Answers are plain
 * JSON (no SSE; the modern leg upgrades only for messages sent before a result, and we send none):
 * every tool is a quick read, and there are no server-initiated messages to stream.
 * GET (standalone SSE stream) and DELETE (session end) have nothing to serve without sessions.
 */
export function mcpRoutes({ catalogue, logger, usage }: McpRouteDeps): Router {
  const serverFor = ({ authInfo }: Pick<McpRequestContext, 'authInfo'>) => {
    const { caller, requestId } = (authInfo as RequestAuth).extra;
    return createCatalogueMcpServer({ catalogue: catalogue.forRequest(requestId), logger, caller, requestId });
  };
  const onerror = (error: Error) => logger.warn({ err: error }, 'mcp request rejected');

  const modern = createMcpHandler(serverFor, { legacy: 'reject', onerror });
  const legacy = async (request: globalThis.Request, options: McpHandlerRequestOptions = {}): Promise<globalThis.Response> => {
    const server = serverFor(options);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, options);
    } finally {
      void server.close();
    }
  };
  const handle = toNodeHandler(
    {
      fetch: async (request, options) =>
        sentWhole(
          await ((await isLegacyRequest(request, options?.parsedBody)) ? legacy(request, options) : modern.fetch(request, options)),
        ),
    },
    { onerror },
  );

  const router = Router();
  router.post('/', async (req: Request, res: Response) => {
    const { caller } = res.locals as AuthLocals;
    const requestId = requestIdOf(req);
    logger.info({ request_id: requestId, sub: caller.sub, client_id: caller.clientId, methods: methodsOf(req.body) }, 'mcp request');
    if (caller.grantId && usage) {
      // Not awaited: a lost "last used" time must never fail or slow a request.
      usage.recordUse(caller.grantId).catch((error: unknown) => logger.warn({ err: error }, 'could not record grant use'));
    }
    const auth = (req as Request & { auth: AuthInfo }).auth;
    const withRequestId: RequestAuth = { ...auth, extra: { caller, requestId } };
    // The request's context for what is built once per process (prompt argument completers).
    await runAsRequest({ catalogue: catalogue.forRequest(requestId), logger, caller, requestId }, () =>
      handle(Object.assign(req, { auth: withRequestId }), res, req.body),
    );
  });

  const notAllowed = () => {
    throw new MethodNotAllowedError(['POST'], 'This MCP server is stateless: use POST.');
  };
  router.get('/', notAllowed);
  router.delete('/', notAllowed);
  return router;
}
