import { describe, expect } from 'vitest';
import { mcpTest, TEST_MCP_URL as MCP_URL, type McpApp } from '../testing/app.ts';
import { PREFLIGHT_MAX_AGE_SECONDS } from './cors.ts';

// Header-level CORS of the MCP server: every preflight and answer, from an allowed origin, a
// refused one and without Origin (non-browser clients).
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

/** The app under test: its own origin and the Inspector's are allowed at /mcp. */
const it = mcpTest.extend('app', { scope: 'file' }, ({ startApp }) =>
  startApp({ env: { MCP_ALLOWED_ORIGINS: `${MCP_URL},${ALLOWED}` }, rateLimit: { perMinute: 600, burst: 600 } }),
);

describe('MCP server CORS', () => {
  const preflight = (app: McpApp, path: string, origin: string | undefined, requestHeaders = MCP_REQUEST_HEADERS, method = 'POST') =>
    fetch(`${app.url}${path}`, {
      method: 'OPTIONS',
      headers: {
        ...(origin ? { origin } : {}),
        'access-control-request-method': method,
        'access-control-request-headers': requestHeaders,
      },
    });

  describe('RFC 9728 metadata (both paths): any origin, no credentials', () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      it(`${path}: preflight with MCP-Protocol-Version, then the document, from any origin`, async ({ app }) => {
        for (const origin of [ALLOWED, REFUSED]) {
          const pre = await preflight(app, path, origin, 'mcp-protocol-version', 'GET');
          expect(pre.status).toBe(204);
          expect(pre.headers.get('access-control-allow-origin')).toBe('*');
          expect(lower(pre.headers.get('access-control-allow-headers'))).toContain('mcp-protocol-version');
          expect(lower(pre.headers.get('access-control-allow-methods'))).toContain('get');
          expect(pre.headers.get('access-control-max-age')).toBe(String(PREFLIGHT_MAX_AGE_SECONDS));
          expect(pre.headers.get('access-control-allow-credentials')).toBeNull();

          const res = await fetch(`${app.url}${path}`, { headers: { origin, 'mcp-protocol-version': '2025-11-25' } });
          expect(res.status).toBe(200);
          expect(res.headers.get('access-control-allow-origin')).toBe('*');
          expect(res.headers.get('access-control-allow-credentials')).toBeNull();
        }
        // Without Origin (a server-side client) the document is the same.
        const plain = await fetch(`${app.url}${path}`);
        expect(plain.status).toBe(200);
        expect(plain.headers.get('access-control-allow-origin')).toBe('*');
      });
    }
  });

  describe('/mcp: only MCP_ALLOWED_ORIGINS', () => {
    it('answers the preflight of an allowed origin without a token, naming the MCP headers', async ({ app }) => {
      const res = await preflight(app, '/mcp', ALLOWED);
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED);
      expect(lower(res.headers.get('access-control-allow-headers'))).toEqual(MCP_REQUEST_HEADERS.split(',').sort());
      expect(lower(res.headers.get('access-control-allow-methods'))).toEqual(['delete', 'get', 'post']);
      expect(res.headers.get('access-control-max-age')).toBe(String(PREFLIGHT_MAX_AGE_SECONDS));
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      expect(lower(res.headers.get('vary'))).toContain('origin');
      expect(res.headers.get('www-authenticate')).toBeNull();
    });

    it('makes the 401 challenge readable to an allowed origin (WWW-Authenticate exposed)', async ({ app }) => {
      const res = await app.post({ origin: ALLOWED });
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

    it('answers a tool request of an allowed origin with CORS headers', async ({ app }) => {
      const token = await app.token();
      const res = await app.post({ origin: ALLOWED, authorization: `Bearer ${token}` });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED);
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    });

    it('refuses any other origin with 403 and no CORS headers: preflight, no token, and a good token', async ({ app }) => {
      const token = await app.token();
      const answers = [
        await preflight(app, '/mcp', REFUSED),
        await app.post({ origin: REFUSED }),
        await app.post({ origin: REFUSED, authorization: `Bearer ${token}` }),
      ];
      for (const res of answers) {
        expect(res.status).toBe(403);
        expect(res.headers.get('access-control-allow-origin')).toBeNull();
        expect(res.headers.get('www-authenticate')).toBeNull();
      }
      // The null origin of sandboxed frames and file: pages is not an allowed origin either.
      expect((await app.post({ origin: 'null' })).status).toBe(403);
    });

    it('sends no CORS headers without Origin (non-browser clients keep working as before)', async ({ app }) => {
      const res = await app.post({});
      expect(res.status).toBe(401);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      // A preflight-shaped OPTIONS without Origin is no preflight: it needs a token like any request.
      expect((await preflight(app, '/mcp', undefined)).status).toBe(401);
    });
  });
});
