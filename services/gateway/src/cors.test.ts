import { createServer, type IncomingMessage, type Server } from 'node:http';
import { describe, expect } from 'vitest';
import { close, listen } from '@fragrance/testkit';
import { gatewayTest } from './testing/app.ts';

// CORS at the edge: under /v1 only the read endpoints publishable keys reach; the authorization server's and
// MCP server's own CORS answers (preflights included) pass through unchanged; /account reaches
// the authorization server.
const ORIGIN = 'http://127.0.0.1:11997';

type Seen = { method: string; url: string; origin?: string }[];

/** An upstream that answers like a CORS-aware service and remembers what reached it. */
function corsUpstream(seen: Seen): Server {
  return createServer((req: IncomingMessage, res) => {
    if (req.url === '/health') return void res.end('ok');
    seen.push({ method: req.method ?? '', url: req.url ?? '', ...(req.headers.origin ? { origin: req.headers.origin } : {}) });
    res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*');
    res.setHeader('Access-Control-Expose-Headers', 'WWW-Authenticate');
    res.setHeader('Vary', 'Origin');
    if (req.method === 'OPTIONS') return void res.writeHead(204, { 'Access-Control-Max-Age': '7200' }).end();
    res.setHeader('content-type', 'text/html');
    res.end('<!doctype html><title>upstream</title>');
  });
}

/** The file's gateway in front of the stand-in catalogue and two CORS-aware upstreams (auth, mcp). */
const it = gatewayTest
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  .extend('cors', { scope: 'file' }, async ({}, { onCleanup }) => {
    const authSeen: Seen = [];
    const mcpSeen: Seen = [];
    const [auth, mcp] = [corsUpstream(authSeen), corsUpstream(mcpSeen)];
    const [authUrl, mcpUrl] = await Promise.all([listen(auth), listen(mcp)]);
    onCleanup(async () => {
      await Promise.all([close(auth), close(mcp)]);
    });
    return { authSeen, mcpSeen, authUrl, mcpUrl };
  })
  .extend('gatewayOptions', { scope: 'file' }, ({ cors }) => ({ env: { AUTH_SERVICE_URL: cors.authUrl, MCP_SERVICE_URL: cors.mcpUrl } }))
  .extend(
    'preflight',
    { scope: 'file' },
    ({ gateway }) =>
      (path: string) =>
        fetch(`${gateway.url}${path}`, {
          method: 'OPTIONS',
          headers: { origin: ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
        }),
  );

describe('CORS at the edge', () => {
  it('gives CORS only to the read endpoints: none on /v1/me, usage, export or the OpenAPI document', async ({ gateway, preflight }) => {
    for (const res of [
      await preflight('/v1/me'),
      await preflight('/v1/usage'),
      await preflight('/v1/fragrances/export'),
      await fetch(`${gateway.url}/v1/openapi.json`, { headers: { origin: ORIGIN } }),
    ]) {
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('access-control-allow-headers')).toBeNull();
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    }
    // The read endpoints (publishable-keys.test.ts has the rest): preflight without a key, never credentials.
    const res = await preflight('/v1/fragrances');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('passes preflights and CORS answers of /mcp, the metadata and /oauth through unchanged, with Origin', async ({ cors, preflight }) => {
    for (const [path, seen] of [
      ['/mcp', cors.mcpSeen],
      ['/.well-known/oauth-protected-resource/mcp', cors.mcpSeen],
      ['/oauth/register', cors.authSeen],
      ['/.well-known/oauth-authorization-server', cors.authSeen],
    ] as const) {
      const res = await preflight(path);
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(res.headers.get('access-control-max-age')).toBe('7200');
      expect(res.headers.get('vary')).toBe('Origin');
      expect(seen.at(-1)).toEqual({ method: 'OPTIONS', url: path, origin: ORIGIN });
    }
  });

  it('routes /account and its form posts to the authorization server', async ({ gateway, cors }) => {
    const page = await fetch(`${gateway.url}/account`);
    expect(page.status).toBe(200);
    expect(cors.authSeen.at(-1)).toMatchObject({ method: 'GET', url: '/account' });
    const post = await fetch(`${gateway.url}/account/disconnect`, { method: 'POST', body: 'csrf=x' });
    expect(post.status).toBe(200);
    expect(cors.authSeen.at(-1)).toMatchObject({ method: 'POST', url: '/account/disconnect' });
    // Only /account itself and below: /accounts is not the authorization server's.
    expect((await fetch(`${gateway.url}/accounts`)).status).toBe(404);
  });
});
