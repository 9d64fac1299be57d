import { createServer, type Server } from 'node:http';
import type { Assets } from './assets.ts';

/**
 * The page's Content-Security-Policy: its own script and styles only, and requests to the API's
 * origin only. A storefront copying this keeps injected markup from running or phoning home.
 */
export function contentSecurityPolicy(apiUrl: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `connect-src ${new URL(apiUrl).origin}`,
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * A static server for the built page: GET/HEAD of its few files (the page itself at `/`, also
 * for any address with a query), `/health` for scripts waiting on it, 404 for anything else.
 */
export function createStorefrontServer(assets: Assets, apiUrl: string): Server {
  const csp = contentSecurityPolicy(apiUrl);
  return createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://storefront.invalid').pathname;
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }).end('Method not allowed\n');
      return;
    }
    if (path === '/health') {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' }).end('ok\n');
      return;
    }
    const asset = assets.get(path);
    if (asset === undefined) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found\n');
      return;
    }
    res.writeHead(200, {
      'Content-Type': asset.type,
      'Content-Length': asset.body.byteLength,
      // Rebuilt on every start: revalidate rather than keep a stale bundle.
      'Cache-Control': 'no-cache',
      ...(path === '/' ? { 'Content-Security-Policy': csp, 'Referrer-Policy': 'strict-origin-when-cross-origin' } : {}),
    });
    res.end(req.method === 'HEAD' ? undefined : asset.body);
  });
}
