import type { OAuthProtectedResourceMetadata } from '@modelcontextprotocol/server';
import { Router } from 'express';
import { metadataCors } from './cors.ts';

export interface ResourceMetadataOptions {
  resource: string;
  issuer: string;
  scopes: string[];
  documentationUrl?: string;
}

/**
 * RFC 9728 protected resource metadata, served at the path-suffixed location for `/mcp` and at
 * the root location (clients of older drafts look there). Public and cacheable; CORS-open (any
 * origin, preflights included) so browser-based MCP clients can discover the authorization server.
 */
export function resourceMetadataRoutes(options: ResourceMetadataOptions): Router {
  const metadata: OAuthProtectedResourceMetadata = {
    resource: options.resource,
    authorization_servers: [options.issuer],
    scopes_supported: options.scopes,
    bearer_methods_supported: ['header'],
    resource_name: 'Fragrance Catalogue MCP server',
    ...(options.documentationUrl ? { resource_documentation: options.documentationUrl } : {}),
  };
  const router = Router();
  const paths = ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp'];
  router.options(paths, metadataCors());
  router.get(paths, metadataCors(), (_req, res) => {
    res.set('Cache-Control', 'public, max-age=3600').json(metadata);
  });
  return router;
}
