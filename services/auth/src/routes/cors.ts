import cors from 'cors';
import { Router } from 'express';

/** How long a browser may reuse a preflight answer (Chromium caps it at 2 hours); docs/oauth.md "Browser clients". */
export const PREFLIGHT_MAX_AGE_SECONDS = 7_200;

/** Public documents: RFC 8414 metadata at both names, and the signing keys. */
const METADATA_PATHS = ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration', '/oauth/jwks'];
/** Endpoints a browser-based public client calls with fetch: registration, token, revocation. */
const CLIENT_ENDPOINTS = ['/oauth/register', '/oauth/token', '/oauth/revoke'];

/**
 * CORS per endpoint, by what each needs (docs/oauth.md "Browser clients"). The origin is echoed
 * (with Vary: Origin), as oidc-provider does on the answers it writes itself, and credentials
 * are never allowed: public clients identify themselves with `client_id`, never with our
 * cookies. Preflights are answered here, before anything else runs. The authorization endpoint
 * and the sign-in, consent and account pages get no CORS at all: they are navigations.
 */
export function corsRoutes(): Router {
  const router = Router();
  const metadata = cors({
    origin: true,
    methods: ['GET', 'HEAD'],
    // MCP clients send MCP-Protocol-Version even on discovery requests.
    allowedHeaders: ['Accept', 'MCP-Protocol-Version'],
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
  });
  const clientEndpoints = cors({
    origin: true,
    methods: ['POST'],
    allowedHeaders: ['Content-Type', 'Accept', 'Authorization', 'MCP-Protocol-Version'],
    // Errors must be readable: the challenge of a 401, and when to retry after a 429.
    exposedHeaders: ['WWW-Authenticate', 'Retry-After'],
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
  });
  router.use(METADATA_PATHS, metadata);
  router.use(CLIENT_ENDPOINTS, clientEndpoints);
  return router;
}
