import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RevocationStore } from '@fragrance/identity';
import { createLogger } from '@fragrance/http';
import { testRedis, type TestRedis } from '@fragrance/testkit';
import { buildApp } from '../app.ts';
import { createCatalogue, type Catalogue } from '../catalogue/catalogue.ts';
import { McpConfig } from '../config.ts';
import { createRateLimiter } from '../rate-limit.ts';
import { close, INITIALIZE, jwksServer, listen, MCP_HEADERS, mintToken, signingKey, type SigningKey } from '../test-helpers.ts';
import { tokenVerifierFor } from './verify-token.ts';
import { PREFLIGHT_MAX_AGE_SECONDS } from './cors.ts';

// Header-level CORS of the MCP server: every preflight and answer, from an allowed origin, a
// refused one and without Origin (non-browser clients).
const MCP_URL = 'http://mcp.example.test';
const ISSUER = 'http://auth.example.test';
const ALLOWED = 'http://localhost:6274';
const REFUSED = 'http://evil.example.com';
// 2026-07-28 clients also send Mcp-Method and Mcp-Name (SEP-2243 routing headers) on every POST.
const MCP_REQUEST_HEADERS = 'authorization,content-type,accept,mcp-protocol-version,mcp-session-id,last-event-id,mcp-method,mcp-name';

const lower = (value: string | null) =>
  (value ?? '')
    .toLowerCase()
    .split(/\s*,\s*/)
    .filter(Boolean)
    .sort();

describe('MCP server CORS', () => {
  let redis: TestRedis;
  let key: SigningKey;
  let jwks: { url: string; server: Server };
  let catalogue: Catalogue;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    redis = await testRedis('mcp-cors');
    key = await signingKey('key-1');
    jwks = await jwksServer([key]);
    catalogue = createCatalogue({ baseUrl: 'http://127.0.0.1:1', timeoutMs: 500 });
    const config = McpConfig.parse({ MCP_URL, OAUTH_ISSUER: ISSUER, JWKS_URL: jwks.url, MCP_ALLOWED_ORIGINS: `${MCP_URL},${ALLOWED}` });
    const app = buildApp({
      config,
      logger: createLogger('mcp-test', 'silent'),
      redis: redis.redis,
      verify: tokenVerifierFor(config, new RevocationStore(redis.redis, { prefix: redis.prefix })),
      rateLimiter: createRateLimiter({ redis: redis.redis, prefix: redis.prefix, perMinute: 600, burst: 600 }),
      catalogue,
    });
    server = createServer(app);
    base = await listen(server);
  });
  afterAll(async () => {
    await Promise.all([server, jwks.server].map(close));
    await catalogue.close();
    await redis.cleanup();
  });

  const preflight = (path: string, origin: string | undefined, requestHeaders = MCP_REQUEST_HEADERS, method = 'POST') =>
    fetch(`${base}${path}`, {
      method: 'OPTIONS',
      headers: {
        ...(origin ? { origin } : {}),
        'access-control-request-method': method,
        'access-control-request-headers': requestHeaders,
      },
    });
  const post = (headers: Record<string, string>) =>
    fetch(`${base}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body: JSON.stringify(INITIALIZE) });

  describe('RFC 9728 metadata (both paths): any origin, no credentials', () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      it(`${path}: preflight with MCP-Protocol-Version, then the document, from any origin`, async () => {
        for (const origin of [ALLOWED, REFUSED]) {
          const pre = await preflight(path, origin, 'mcp-protocol-version', 'GET');
          expect(pre.status).toBe(204);
          expect(pre.headers.get('access-control-allow-origin')).toBe('*');
          expect(lower(pre.headers.get('access-control-allow-headers'))).toContain('mcp-protocol-version');
          expect(lower(pre.headers.get('access-control-allow-methods'))).toContain('get');
          expect(pre.headers.get('access-control-max-age')).toBe(String(PREFLIGHT_MAX_AGE_SECONDS));
          expect(pre.headers.get('access-control-allow-credentials')).toBeNull();

          const res = await fetch(`${base}${path}`, { headers: { origin, 'mcp-protocol-version': '2025-11-25' } });
          expect(res.status).toBe(200);
          expect(res.headers.get('access-control-allow-origin')).toBe('*');
          expect(res.headers.get('access-control-allow-credentials')).toBeNull();
        }
        // Without Origin (a server-side client) the document is the same.
        const plain = await fetch(`${base}${path}`);
        expect(plain.status).toBe(200);
        expect(plain.headers.get('access-control-allow-origin')).toBe('*');
      });
    }
  });

  describe('/mcp: only MCP_ALLOWED_ORIGINS', () => {
    it('answers the preflight of an allowed origin without a token, naming the MCP headers', async () => {
      const res = await preflight('/mcp', ALLOWED);
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED);
      expect(lower(res.headers.get('access-control-allow-headers'))).toEqual(MCP_REQUEST_HEADERS.split(',').sort());
      expect(lower(res.headers.get('access-control-allow-methods'))).toEqual(['delete', 'get', 'post']);
      expect(res.headers.get('access-control-max-age')).toBe(String(PREFLIGHT_MAX_AGE_SECONDS));
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      expect(lower(res.headers.get('vary'))).toContain('origin');
      expect(res.headers.get('www-authenticate')).toBeNull();
    });

    it('makes the 401 challenge readable to an allowed origin (WWW-Authenticate exposed)', async () => {
      const res = await post({ origin: ALLOWED });
      expect(res.status).toBe(401);
      expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED);
      expect(lower(res.headers.get('access-control-expose-headers'))).toEqual([
        'mcp-protocol-version',
        'mcp-session-id',
        'www-authenticate',
      ]);
      expect(lower(res.headers.get('vary'))).toContain('origin');
      expect(res.headers.get('www-authenticate')).toContain('resource_metadata=');
    });

    it('answers a tool request of an allowed origin with CORS headers', async () => {
      const token = await mintToken(key, { issuer: ISSUER, audience: `${MCP_URL}/mcp` });
      const res = await post({ origin: ALLOWED, authorization: `Bearer ${token}` });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED);
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    });

    it('refuses any other origin with 403 and no CORS headers: preflight, no token, and a good token', async () => {
      const token = await mintToken(key, { issuer: ISSUER, audience: `${MCP_URL}/mcp` });
      const answers = [
        await preflight('/mcp', REFUSED),
        await post({ origin: REFUSED }),
        await post({ origin: REFUSED, authorization: `Bearer ${token}` }),
      ];
      for (const res of answers) {
        expect(res.status).toBe(403);
        expect(res.headers.get('access-control-allow-origin')).toBeNull();
        expect(res.headers.get('www-authenticate')).toBeNull();
      }
      // The null origin of sandboxed frames and file: pages is not an allowed origin either.
      expect((await post({ origin: 'null' })).status).toBe(403);
    });

    it('sends no CORS headers without Origin (non-browser clients keep working as before)', async () => {
      const res = await post({});
      expect(res.status).toBe(401);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      // A preflight-shaped OPTIONS without Origin is no preflight: it needs a token like any request.
      expect((await preflight('/mcp', undefined)).status).toBe(401);
    });
  });
});
