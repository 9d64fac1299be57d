import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedis, type TestRedis } from '@fragrance/testkit';
import { close, fakeUpstream, listen, startGateway, type GatewayUnderTest } from './test-support.ts';

// CORS at the edge: under /v1 only the read endpoints publishable keys reach; the authorization server's and
// MCP server's own CORS answers (preflights included) pass through unchanged; /account reaches
// the authorization server.
const ORIGIN = 'http://127.0.0.1:11997';

/** An upstream that answers like a CORS-aware service and remembers what reached it. */
function corsUpstream(seen: { method: string; url: string; origin?: string }[]): Server {
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

let redis: TestRedis;
let catalogue: Server;
let auth: Server;
let mcp: Server;
let gateway: GatewayUnderTest;
const authSeen: { method: string; url: string; origin?: string }[] = [];
const mcpSeen: { method: string; url: string; origin?: string }[] = [];

beforeAll(async () => {
  redis = await testRedis('gateway-cors');
  catalogue = fakeUpstream();
  auth = corsUpstream(authSeen);
  mcp = corsUpstream(mcpSeen);
  const [catalogueUrl, authUrl, mcpUrl] = await Promise.all([listen(catalogue), listen(auth), listen(mcp)]);
  gateway = await startGateway({
    redis: redis.redis,
    prefix: redis.prefix,
    upstreamUrl: catalogueUrl,
    env: { AUTH_SERVICE_URL: authUrl, MCP_SERVICE_URL: mcpUrl },
  });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([catalogue, auth, mcp].filter(Boolean).map(close));
  await redis?.cleanup();
});

const preflight = (path: string) =>
  fetch(`${gateway.url}${path}`, {
    method: 'OPTIONS',
    headers: { origin: ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
  });

describe('CORS at the edge', () => {
  it('gives CORS only to the read endpoints: none on /v1/me, usage, export or the OpenAPI document', async () => {
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

  it('passes preflights and CORS answers of /mcp, the metadata and /oauth through unchanged, with Origin', async () => {
    for (const [path, seen] of [
      ['/mcp', mcpSeen],
      ['/.well-known/oauth-protected-resource/mcp', mcpSeen],
      ['/oauth/register', authSeen],
      ['/.well-known/oauth-authorization-server', authSeen],
    ] as const) {
      const res = await preflight(path);
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(res.headers.get('access-control-max-age')).toBe('7200');
      expect(res.headers.get('vary')).toBe('Origin');
      expect(seen.at(-1)).toEqual({ method: 'OPTIONS', url: path, origin: ORIGIN });
    }
  });

  it('routes /account and its form posts to the authorization server', async () => {
    const page = await fetch(`${gateway.url}/account`);
    expect(page.status).toBe(200);
    expect(authSeen.at(-1)).toMatchObject({ method: 'GET', url: '/account' });
    const post = await fetch(`${gateway.url}/account/disconnect`, { method: 'POST', body: 'csrf=x' });
    expect(post.status).toBe(200);
    expect(authSeen.at(-1)).toMatchObject({ method: 'POST', url: '/account/disconnect' });
    // Only /account itself and below: /accounts is not the authorization server's.
    expect((await fetch(`${gateway.url}/accounts`)).status).toBe(404);
  });
});
