import cors from 'cors';
import { Router, type RequestHandler } from 'express';
import { MethodNotAllowedError } from '@fragrance/http';
import type { McpConfig } from '../config.ts';
import { AI_CATALOG_MEDIA_TYPE, aiCatalog, SERVER_CARD_MEDIA_TYPE, serverCard } from '../discovery/documents.ts';

/** Paths of the Server Card: the draft's `<streamable-http-url>/server-card`, and the earlier well-known one. */
export const SERVER_CARD_PATHS = ['/mcp/server-card', '/.well-known/mcp/server-card.json'] as const;
/** Paths of the AI Catalog: the draft's well-known one, and the earlier MCP-scoped one. */
export const CATALOG_PATHS = ['/.well-known/ai-catalog.json', '/.well-known/mcp/catalog.json'] as const;

/** Public, read-only metadata: any origin may read it (the draft's CORS), and any cache may keep it for an hour. */
const openCors = cors({
  origin: '*',
  methods: ['GET', 'HEAD'],
  allowedHeaders: ['Content-Type', 'If-None-Match'],
  exposedHeaders: ['ETag'],
  maxAge: 86_400,
});

/** The document as JSON of its media type; express adds the ETag and answers 304 to a matching If-None-Match. */
function document(mediaType: string, body: unknown): RequestHandler {
  const text = JSON.stringify(body);
  return (_req, res) => {
    res.type(`${mediaType}; charset=utf-8`).setHeader('Cache-Control', 'public, max-age=3600');
    res.send(text);
  };
}

const notAllowed: RequestHandler = () => {
  throw new MethodNotAllowedError(['GET', 'HEAD'], 'Discovery documents are read-only.');
};

/**
 * Discovery before connecting (SEP-2127 and the AI Catalog): the Server Card and the catalog that
 * points at it. Mounted before /mcp's Host, Origin and bearer checks: nothing here is private.
 */
export function discoveryRoutes(config: Pick<McpConfig, 'MCP_URL' | 'OAUTH_ISSUER'>): Router {
  const router = Router();
  const card = document(SERVER_CARD_MEDIA_TYPE, serverCard(config));
  const catalog = document(AI_CATALOG_MEDIA_TYPE, aiCatalog(config));
  for (const [paths, handler] of [
    [SERVER_CARD_PATHS, card],
    [CATALOG_PATHS, catalog],
  ] as const) {
    router.options([...paths], openCors);
    router.get([...paths], openCors, handler);
    router.all([...paths], notAllowed);
  }
  return router;
}
