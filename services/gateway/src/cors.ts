import cors from 'cors';
import type { RequestHandler } from 'express';

/**
 * How long a browser may reuse a preflight answer: 2 hours, the most Chromium honours (Firefox
 * allows 24 h). The answer depends on nothing that changes (methods and headers are fixed), so
 * the longest useful time saves a shopper's page one round trip per endpoint and 2 hours.
 */
export const PREFLIGHT_MAX_AGE_SECONDS = 7_200;

/** What a page may read of an answer beyond the CORS-safelisted headers. */
const EXPOSED_HEADERS = [
  'RateLimit',
  'RateLimit-Policy',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Retry-After',
  'WWW-Authenticate',
  'ETag',
  'X-Request-Id',
  'Deprecation',
  'Sunset',
  'Link',
];

/**
 * CORS for the read endpoints a publishable key reaches (docs/gateway.md "CORS"), with the
 * maintained `cors` middleware. Any origin is echoed (with `Vary: Origin`): the preflight carries
 * no key, so it cannot know the key's allowed origins; the request itself is then admitted only
 * from an origin its publishable key allows (a refusal is a 403 the page can read). Credentials
 * (cookies) are never allowed: the key in `Authorization` is the only credential.
 * A preflight (OPTIONS with Origin and Access-Control-Request-Method) is answered here without a
 * key; any other OPTIONS goes on to the route (a 405 after the key check, as before).
 */
export function readEndpointCors(): RequestHandler {
  const handler = cors({
    origin: true,
    methods: ['GET', 'HEAD'],
    allowedHeaders: ['Authorization', 'If-None-Match'],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
    optionsSuccessStatus: 204,
  });
  return (req, res, next) => {
    // Not from a browser page (servers send no Origin): only say that the answer varies by it.
    if (req.headers.origin === undefined) {
      res.setHeader('Vary', 'Origin');
      next();
      return;
    }
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] === undefined) {
      next();
      return;
    }
    handler(req, res, next);
  };
}
