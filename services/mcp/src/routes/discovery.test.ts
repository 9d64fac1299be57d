// The discovery routes of the real app (real Redis, tokens of a throw-away key) listening at its own
// MCP_URL, so every URL the Server Card, the AI Catalog and server.json name can be followed.
import { describe, expect } from 'vitest';
import { aiCatalog, serverCard, serverJson } from '../discovery/documents.ts';
import { mcpTest, TEST_ISSUER as ISSUER } from '../testing/app.ts';
import { MCP_HEADERS } from '../testing/tokens.ts';
import { CATALOG_PATHS, SERVER_CARD_PATHS } from './discovery.ts';

/** The app at its own MCP_URL (nothing here reaches the catalogue: server/discover is answered by the server itself). */
const it = mcpTest.extend('app', { scope: 'file' }, ({ startApp }) =>
  startApp({ mcpUrlIsSelf: true, rateLimit: { perMinute: 600, burst: 100 } }),
);

describe('discovery routes', () => {
  it.for(SERVER_CARD_PATHS)(
    'serves the Server Card at %s: its media type, open CORS, cacheable, revalidated by ETag',
    async (path, { app }) => {
      const res = await fetch(`${app.url}${path}`, {
        headers: { accept: 'application/mcp-server-card+json', origin: 'https://elsewhere.example' },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/mcp-server-card+json; charset=utf-8');
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-expose-headers')).toBe('ETag');
      expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
      expect(await res.json()).toEqual(serverCard(app.config));
      const etag = res.headers.get('etag');
      expect(etag).toBeTruthy();
      // fetch adds `Cache-Control: no-cache` to a request with If-None-Match unless told otherwise,
      // and express (rightly) answers such a request in full; a cache revalidating sends no such header.
      const again = await fetch(`${app.url}${path}`, { headers: { 'if-none-match': etag!, 'cache-control': 'max-age=0' } });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe('');
    },
  );

  it.for(CATALOG_PATHS)('serves the AI Catalog at %s, and its entry leads to the card', async (path, { app }) => {
    const res = await fetch(`${app.url}${path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/ai-catalog+json; charset=utf-8');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const catalog = (await res.json()) as ReturnType<typeof aiCatalog>;
    expect(catalog).toEqual(aiCatalog(app.config));
    const card = await fetch(catalog.entries[0]!.url, { headers: { accept: catalog.entries[0]!.type } });
    expect(card.status).toBe(200);
    expect(await card.json()).toEqual(serverCard(app.config));
  });

  it('answers a browser preflight for any origin, with If-None-Match allowed; other methods are 405', async ({ app }) => {
    const preflight = await fetch(`${app.url}/mcp/server-card`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://elsewhere.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'if-none-match',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('Content-Type,If-None-Match');
    for (const path of [...SERVER_CARD_PATHS, ...CATALOG_PATHS]) {
      const res = await fetch(`${app.url}${path}`, { method: 'POST', body: '{}' });
      expect(res.status, path).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD');
    }
  });

  it("the card's remote answers as the MCP endpoint it claims: the OAuth challenge, then server/discover and initialize agreeing with the card", async ({
    app,
  }) => {
    const card = serverCard(app.config);
    const [remote] = card.remotes;
    // Without a token: the RFC 9728 challenge, whose metadata names this very remote as the resource.
    const challenge = await fetch(remote!.url, { method: 'POST', headers: MCP_HEADERS, body: '{}' });
    expect(challenge.status).toBe(401);
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge.headers.get('www-authenticate') ?? '')?.[1];
    expect(metadataUrl).toBe(
      serverJson(app.config)._meta['io.modelcontextprotocol.registry/publisher-provided'].oauth.protectedResourceMetadata,
    );
    const metadata = await fetch(metadataUrl!);
    expect(metadata.status).toBe(200);
    expect(await metadata.json()).toMatchObject({ resource: remote!.url, authorization_servers: [ISSUER] });

    // With one: server/discover (2026-07-28) says the same name and version, and revisions the card lists.
    const discover = await fetch(remote!.url, {
      method: 'POST',
      headers: {
        ...MCP_HEADERS,
        authorization: `Bearer ${await app.token()}`,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'server/discover',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'server/discover',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'discovery-test', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    expect(discover.status).toBe(200);
    const { result } = (await discover.json()) as {
      result: { supportedVersions: string[]; _meta: Record<string, { name: string; version: string }> };
    };
    const info = result._meta['io.modelcontextprotocol/serverInfo']!;
    expect(card.name.endsWith(`/${info.name}`)).toBe(true);
    expect(info.version).toBe(card.version);
    expect(remote!.supportedProtocolVersions).toEqual(expect.arrayContaining(result.supportedVersions));
    // Every 2025-era revision the card lists is one the initialize handshake settles on.
    for (const version of remote!.supportedProtocolVersions.filter((v) => !result.supportedVersions.includes(v))) {
      const initialize = await fetch(remote!.url, {
        method: 'POST',
        headers: { ...MCP_HEADERS, authorization: `Bearer ${await app.token()}` },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'discovery-test', version: '1' } },
        }),
      });
      expect(((await initialize.json()) as { result: { protocolVersion: string } }).result.protocolVersion, version).toBe(version);
    }
  });
});
