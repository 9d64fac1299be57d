import type { OAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { Router } from 'express';

export interface ResourceMetadataOptions {
  resource: string;
  issuer: string;
  scopes: string[];
  documentationUrl?: string;
}

/**
 * RFC 9728 protected resource metadata, served at the path-suffixed location for `/mcp` and at
 * the root location (clients of older drafts look there). Public and cacheable; CORS-open so
 * browser-based MCP clients can discover the authorization server.
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
  router.get(['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp'], (_req, res) => {
    res.set('Access-Control-Allow-Origin', '*').set('Cache-Control', 'public, max-age=3600').json(metadata);
  });
  return router;
}
