import { request } from 'node:http';
import { SignJWT } from 'jose';
import { describe, expect } from 'vitest';
import { Problem } from '@fragrance/contracts';
import { mcpTest, TEST_ISSUER as ISSUER, TEST_MCP_URL as MCP_URL, type McpApp } from './testing/app.ts';
import { INITIALIZE, MCP_HEADERS, signingKey, unsecuredToken } from './testing/tokens.ts';

const RESOURCE = `${MCP_URL}/mcp`;
const METADATA_URL = `${MCP_URL}/.well-known/oauth-protected-resource/mcp`;

/** The app the tests share (its catalogue answers nowhere: initialize and tools/list never need it, tool calls report it down). */
const it = mcpTest.extend('app', { scope: 'file' }, ({ startApp }) => startApp({ rateLimit: { perMinute: 60, burst: 1000 } }));

describe('MCP resource server', () => {
  it('serves RFC 9728 metadata naming the resource and the authorization server', async ({ app }) => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const res = await fetch(`${app.url}${path}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        resource: RESOURCE,
        authorization_servers: [ISSUER],
        scopes_supported: ['catalogue:read'],
        bearer_methods_supported: ['header'],
      });
    }
  });

  it('answers a request without a token with 401 naming the metadata, without an error code', async ({ app }) => {
    const res = await app.post({});
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(`resource_metadata="${METADATA_URL}"`);
    expect(challenge).toContain('scope="catalogue:read"');
    expect(challenge).not.toContain('error=');
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    expect(Problem.parse(await res.json())).toMatchObject({ status: 401, code: 'unauthorized' });
  });

  it('accepts a valid token and answers initialize over Streamable HTTP (protocol 2025-11-25)', async ({ app }) => {
    const res = await app.post({ authorization: `Bearer ${await app.token()}` });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: { protocolVersion: string; serverInfo: { name: string }; capabilities: object } };
    expect(body.result.protocolVersion).toBe('2025-11-25');
    expect(body.result.serverInfo.name).toBe('fragrance-catalogue');
    // Only what a stateless server can keep: no list-change notifications (GET /mcp is 405).
    expect(body.result.capabilities).toMatchObject({ tools: { listChanged: false }, resources: { listChanged: false } });
  });

  it('sends a JSON answer whole, with its length, not chunked (an instance killed mid-answer leaves nothing half-sent)', async ({
    app,
  }) => {
    // A chunked answer's head can leave before its end; cut between them, the response is
    // started and no load balancer may replay it (the chaos bench lost a tool call so).
    const res = await app.post(
      { authorization: `Bearer ${await app.token()}`, 'mcp-protocol-version': '2025-11-25' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    );
    const body = await res.arrayBuffer();
    expect(res.status).toBe(200);
    expect(res.headers.get('transfer-encoding')).toBeNull();
    expect(res.headers.get('content-length')).toBe(String(body.byteLength));
  });

  it('lists every read-only tool with input and output schemas', async ({ app }) => {
    const res = await app.post(
      { authorization: `Bearer ${await app.token()}`, 'mcp-protocol-version': '2025-11-25' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    );
    expect(res.status).toBe(200);
    const { result } = (await res.json()) as {
      result: { tools: { name: string; inputSchema: object; outputSchema?: object; annotations?: { readOnlyHint?: boolean } }[] };
    };
    expect(result.tools.map((t) => t.name).sort()).toEqual([
      'compare_fragrances',
      'discover_fragrances',
      'get_brand',
      'get_fragrance',
      'list_accords',
      'list_brands',
      'list_facets',
      'list_notes',
      'list_perfumers',
      'search_fragrances',
      'similar_fragrances',
      'suggest',
    ]);
    for (const tool of result.tools) {
      expect(tool.outputSchema).toBeDefined();
      expect(tool.inputSchema).toMatchObject({ type: 'object' });
      expect(tool.annotations?.readOnlyHint).toBe(true);
    }
  });

  const refused: [string, (app: McpApp) => Promise<string>][] = [
    ['a token for another audience', (app) => app.token({ audience: 'http://other.example.test/mcp' })],
    ['an expired token', (app) => app.token({ expiresIn: -30 })],
    ['a token from another issuer', (app) => app.token({ issuer: 'http://evil.example.test' })],
    ['a token signed by an unknown key', async (app) => app.token({}, await signingKey('key-unknown'))],
    ['a token signed by another key under the trusted kid', async (app) => app.token({}, await signingKey(app.key.kid))],
    ['an alg none token', async () => unsecuredToken({ issuer: ISSUER, audience: RESOURCE })],
    ['a token whose typ is not at+jwt (an ID token, say)', (app) => app.token({ typ: 'JWT' })],
    [
      'a token in another algorithm (ES256, alg not pinned)',
      async (app) => app.token({ alg: 'ES256' }, await signingKey(app.key.kid, 'ES256')),
    ],
    ['garbage', async () => 'not-a-jwt'],
  ];
  for (const [name, make] of refused) {
    it(`refuses ${name} with 401 invalid_token`, async ({ app }) => {
      const res = await app.post({ authorization: `Bearer ${await make(app)}` });
      expect(res.status).toBe(401);
      const challenge = res.headers.get('www-authenticate') ?? '';
      expect(challenge).toContain('error="invalid_token"');
      expect(challenge).toContain(`resource_metadata="${METADATA_URL}"`);
      expect(Problem.parse(await res.json())).toMatchObject({ status: 401, code: 'invalid_token' });
    });
  }

  it('refuses an HS256 token keyed with the public key (algorithm confusion)', async ({ app }) => {
    const secret = new TextEncoder().encode(JSON.stringify(app.key.publicJwk));
    const forged = await new SignJWT({ client_id: 'c', scope: 'catalogue:read' })
      .setProtectedHeader({ alg: 'HS256', kid: app.key.kid, typ: 'at+jwt' })
      .setIssuer(ISSUER)
      .setAudience(RESOURCE)
      .setSubject('user-1')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(secret);
    expect((await app.post({ authorization: `Bearer ${forged}` })).status).toBe(401);
  });

  it('refuses a non-Bearer Authorization header with 401 invalid_token', async ({ app }) => {
    const res = await app.post({ authorization: 'Basic dXNlcjpwYXNz' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('refuses the tokens of a revoked grant at once, and only those', async ({ app }) => {
    const revoked = await app.token({ gid: 'grant-revoked', sub: 'user-r' });
    const other = await app.token({ gid: 'grant-other', sub: 'user-r' });
    expect((await app.post({ authorization: `Bearer ${revoked}` })).status).toBe(200);
    await app.revocations.revokeGrant('grant-revoked', 3600);
    const res = await app.post({ authorization: `Bearer ${revoked}` });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect((await app.post({ authorization: `Bearer ${other}` })).status).toBe(200);
  });

  it('refuses the tokens of a disabled user', async ({ app }) => {
    const issued = await app.token({ sub: 'user-disabled', gid: 'grant-d' });
    expect((await app.post({ authorization: `Bearer ${issued}` })).status).toBe(200);
    await app.revocations.revokeUser('user-disabled');
    expect((await app.post({ authorization: `Bearer ${issued}` })).status).toBe(401);
  });

  it('answers a token without catalogue:read with 403 insufficient_scope naming the scope', async ({ app }) => {
    const res = await app.post({ authorization: `Bearer ${await app.token({ scope: 'openid profile' })}` });
    expect(res.status).toBe(403);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="catalogue:read"');
    expect(challenge).toContain(`resource_metadata="${METADATA_URL}"`);
    const body: unknown = await res.json();
    expect(Problem.parse(body)).toMatchObject({ status: 403, code: 'insufficient_scope' });
    expect(body).toMatchObject({ required_scope: 'catalogue:read' });
  });

  it('refuses a foreign Origin with 403 before looking at the token, and accepts the own origin', async ({ app }) => {
    const good = await app.token();
    const bad = await app.post({ authorization: `Bearer ${good}`, origin: 'http://evil.example.com' });
    expect(bad.status).toBe(403);
    expect((await app.post({ origin: 'http://evil.example.com' })).status).toBe(403);
    expect((await app.post({ authorization: `Bearer ${good}`, origin: MCP_URL })).status).toBe(200);
  });

  it('refuses a foreign Host header (DNS rebinding) with 403 on a loopback-bound server', async ({ app }) => {
    const url = new URL(`${app.url}/mcp`);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { ...MCP_HEADERS, host: 'evil.example.com' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(INITIALIZE));
    });
    expect(status).toBe(403);
  });

  it('rate-limits per user with 429 and Retry-After, without touching other users', async ({ startApp }) => {
    const limited = await startApp({ rateLimit: { perMinute: 60, burst: 3 } });
    const alice = await limited.token({ sub: 'user-alice' });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await limited.post({ authorization: `Bearer ${alice}` })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const res = await limited.post({ authorization: `Bearer ${alice}` });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await res.json()).toMatchObject({ code: 'mcp_rate_limited' });
    expect((await limited.post({ authorization: `Bearer ${await limited.token({ sub: 'user-bob' })}` })).status).toBe(200);
    const usage = await limited.rateLimiter.usage(new Date().toISOString().slice(0, 10));
    expect(usage['user-alice client-1']).toBe(3);
  });

  it('answers 503 (not 401, not 200) when the signing keys cannot be fetched', async ({ startApp }) => {
    const noKeys = await startApp({ env: { JWKS_URL: 'http://127.0.0.1:1/oauth/jwks' } });
    const res = await noKeys.post({ authorization: `Bearer ${await noKeys.token()}` });
    expect(res.status).toBe(503);
  });

  it('answers GET and DELETE on /mcp with 405 (stateless server)', async ({ app }) => {
    const auth = { authorization: `Bearer ${await app.token()}` };
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${app.url}/mcp`, { method, headers: auth });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(Problem.parse(await res.json()).code).toBe('method_not_allowed');
    }
  });

  it('reports an unreachable catalogue and bad arguments as tool results with isError', async ({ app }) => {
    const auth = { authorization: `Bearer ${await app.token()}`, 'mcp-protocol-version': '2025-11-25' };
    const call = async (name: string, args: object) => {
      const res = await app.post(auth, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name, arguments: args } });
      expect(res.status).toBe(200);
      return ((await res.json()) as { result: { isError?: boolean; content: { text: string }[] } }).result;
    };
    const down = await call('search_fragrances', { query: 'rose' });
    expect(down.isError).toBe(true);
    expect(down.content[0]?.text).toMatch(/temporarily unavailable/);
    const tooMany = await call('search_fragrances', { limit: 500 });
    expect(tooMany.isError).toBe(true);
    expect(tooMany.content[0]?.text).toContain('limit');
    const window = await call('search_fragrances', { offset: 9_995, limit: 10 });
    expect(window.isError).toBe(true);
    expect(window.content[0]?.text).toContain('cursor');
  });

  it('answers malformed JSON with a 4xx, not a 500', async ({ app }) => {
    const res = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, authorization: `Bearer ${await app.token()}` },
      body: '{nope',
    });
    expect(res.status).toBe(400);
  });
});
