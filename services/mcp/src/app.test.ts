import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Problem } from '@fragrance/contracts';
import { RevocationStore } from '@fragrance/identity';
import { createLogger } from '@fragrance/http';
import { testRedis, type TestRedis } from '@fragrance/testkit';
import { buildApp } from './app.ts';
import { tokenVerifierFor } from './auth/verify-token.ts';
import { createCatalogue, type Catalogue } from './catalogue/catalogue.ts';
import { McpConfig } from './config.ts';
import { createRateLimiter } from './rate-limit.ts';
import {
  close,
  INITIALIZE,
  jwksServer,
  listen,
  MCP_HEADERS,
  mintToken,
  signingKey,
  unsecuredToken,
  type SigningKey,
  type TokenOptions,
} from './test-helpers.ts';

const MCP_URL = 'http://mcp.example.test';
const ISSUER = 'http://auth.example.test';
const RESOURCE = `${MCP_URL}/mcp`;
const METADATA_URL = `${MCP_URL}/.well-known/oauth-protected-resource/mcp`;

describe('MCP resource server', () => {
  let redis: TestRedis;
  let key: SigningKey;
  let jwks: { url: string; server: Server };
  let catalogue: Catalogue;
  let revocations: RevocationStore;
  const servers: Server[] = [];
  let base: string;

  async function start(overrides: Record<string, string> = {}, options: { burst?: number; jwksUrl?: string } = {}): Promise<string> {
    const config = McpConfig.parse({ MCP_URL, OAUTH_ISSUER: ISSUER, JWKS_URL: options.jwksUrl ?? jwks.url, ...overrides });
    const verify = tokenVerifierFor(config, revocations);
    const rateLimiter = createRateLimiter({ redis: redis.redis, prefix: redis.prefix, perMinute: 60, burst: options.burst ?? 1000 });
    const app = buildApp({ config, logger: createLogger('mcp-test', 'silent'), redis: redis.redis, verify, rateLimiter, catalogue });
    const server = createServer(app);
    servers.push(server);
    return listen(server);
  }

  const token = (options: Partial<TokenOptions> = {}, signer = key) =>
    mintToken(signer, { issuer: ISSUER, audience: RESOURCE, ...options });

  const post = (url: string, headers: Record<string, string>, body: unknown = INITIALIZE) =>
    fetch(`${url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body: JSON.stringify(body) });

  beforeAll(async () => {
    redis = await testRedis('mcp-auth');
    revocations = new RevocationStore(redis.redis, { prefix: redis.prefix });
    key = await signingKey('key-1');
    jwks = await jwksServer([key]);
    // Nothing here reaches the catalogue: initialize and tools/list are answered by the server itself.
    catalogue = createCatalogue({ baseUrl: 'http://127.0.0.1:1', timeoutMs: 500 });
    base = await start();
  });
  afterAll(async () => {
    await Promise.all([...servers, jwks.server].map(close));
    await catalogue.close();
    await redis.cleanup();
  });

  it('serves RFC 9728 metadata naming the resource and the authorization server', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const res = await fetch(`${base}${path}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        resource: RESOURCE,
        authorization_servers: [ISSUER],
        scopes_supported: ['catalogue:read'],
        bearer_methods_supported: ['header'],
      });
    }
  });

  it('answers a request without a token with 401 naming the metadata, without an error code', async () => {
    const res = await post(base, {});
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(`resource_metadata="${METADATA_URL}"`);
    expect(challenge).toContain('scope="catalogue:read"');
    expect(challenge).not.toContain('error=');
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    expect(Problem.parse(await res.json())).toMatchObject({ status: 401, code: 'unauthorized' });
  });

  it('accepts a valid token and answers initialize over Streamable HTTP (protocol 2025-11-25)', async () => {
    const res = await post(base, { authorization: `Bearer ${await token()}` });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: { protocolVersion: string; serverInfo: { name: string }; capabilities: object } };
    expect(body.result.protocolVersion).toBe('2025-11-25');
    expect(body.result.serverInfo.name).toBe('fragrance-catalogue');
    // Only what a stateless server can keep: no list-change notifications (GET /mcp is 405).
    expect(body.result.capabilities).toMatchObject({ tools: { listChanged: false }, resources: { listChanged: false } });
  });

  it('sends a JSON answer whole, with its length, not chunked (an instance killed mid-answer leaves nothing half-sent)', async () => {
    // A chunked answer's head can leave before its end; cut between them, the response is
    // started and no load balancer may replay it (the chaos bench lost a tool call so).
    const res = await post(
      base,
      { authorization: `Bearer ${await token()}`, 'mcp-protocol-version': '2025-11-25' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    );
    const body = await res.arrayBuffer();
    expect(res.status).toBe(200);
    expect(res.headers.get('transfer-encoding')).toBeNull();
    expect(res.headers.get('content-length')).toBe(String(body.byteLength));
  });

  it('lists every read-only tool with input and output schemas', async () => {
    const res = await post(
      base,
      { authorization: `Bearer ${await token()}`, 'mcp-protocol-version': '2025-11-25' },
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

  const refused: [string, () => Promise<string>][] = [
    ['a token for another audience', () => token({ audience: 'http://other.example.test/mcp' })],
    ['an expired token', () => token({ expiresIn: -30 })],
    ['a token from another issuer', () => token({ issuer: 'http://evil.example.test' })],
    ['a token signed by an unknown key', async () => token({}, await signingKey('key-unknown'))],
    ['a token signed by another key under the trusted kid', async () => token({}, await signingKey('key-1'))],
    ['an alg none token', async () => unsecuredToken({ issuer: ISSUER, audience: RESOURCE })],
    ['a token whose typ is not at+jwt (an ID token, say)', () => token({ typ: 'JWT' })],
    ['a token in another algorithm (ES256, alg not pinned)', async () => token({ alg: 'ES256' }, await signingKey('key-1', 'ES256'))],
    ['garbage', async () => 'not-a-jwt'],
  ];
  for (const [name, make] of refused) {
    it(`refuses ${name} with 401 invalid_token`, async () => {
      const res = await post(base, { authorization: `Bearer ${await make()}` });
      expect(res.status).toBe(401);
      const challenge = res.headers.get('www-authenticate') ?? '';
      expect(challenge).toContain('error="invalid_token"');
      expect(challenge).toContain(`resource_metadata="${METADATA_URL}"`);
      expect(Problem.parse(await res.json())).toMatchObject({ status: 401, code: 'invalid_token' });
    });
  }

  it('refuses an HS256 token keyed with the public key (algorithm confusion)', async () => {
    const { SignJWT } = await import('jose');
    const secret = new TextEncoder().encode(JSON.stringify(key.publicJwk));
    const forged = await new SignJWT({ client_id: 'c', scope: 'catalogue:read' })
      .setProtectedHeader({ alg: 'HS256', kid: 'key-1', typ: 'at+jwt' })
      .setIssuer(ISSUER)
      .setAudience(RESOURCE)
      .setSubject('user-1')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(secret);
    expect((await post(base, { authorization: `Bearer ${forged}` })).status).toBe(401);
  });

  it('refuses a non-Bearer Authorization header with 401 invalid_token', async () => {
    const res = await post(base, { authorization: 'Basic dXNlcjpwYXNz' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('refuses the tokens of a revoked grant at once, and only those', async () => {
    const revoked = await token({ gid: 'grant-revoked', sub: 'user-r' });
    const other = await token({ gid: 'grant-other', sub: 'user-r' });
    expect((await post(base, { authorization: `Bearer ${revoked}` })).status).toBe(200);
    await revocations.revokeGrant('grant-revoked', 3600);
    const res = await post(base, { authorization: `Bearer ${revoked}` });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect((await post(base, { authorization: `Bearer ${other}` })).status).toBe(200);
  });

  it('refuses the tokens of a disabled user', async () => {
    const issued = await token({ sub: 'user-disabled', gid: 'grant-d' });
    expect((await post(base, { authorization: `Bearer ${issued}` })).status).toBe(200);
    await revocations.revokeUser('user-disabled');
    expect((await post(base, { authorization: `Bearer ${issued}` })).status).toBe(401);
  });

  it('answers a token without catalogue:read with 403 insufficient_scope naming the scope', async () => {
    const res = await post(base, { authorization: `Bearer ${await token({ scope: 'openid profile' })}` });
    expect(res.status).toBe(403);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="catalogue:read"');
    expect(challenge).toContain(`resource_metadata="${METADATA_URL}"`);
    const body: unknown = await res.json();
    expect(Problem.parse(body)).toMatchObject({ status: 403, code: 'insufficient_scope' });
    expect(body).toMatchObject({ required_scope: 'catalogue:read' });
  });

  it('refuses a foreign Origin with 403 before looking at the token, and accepts the own origin', async () => {
    const good = await token();
    const bad = await post(base, { authorization: `Bearer ${good}`, origin: 'http://evil.example.com' });
    expect(bad.status).toBe(403);
    expect((await post(base, { origin: 'http://evil.example.com' })).status).toBe(403);
    expect((await post(base, { authorization: `Bearer ${good}`, origin: MCP_URL })).status).toBe(200);
  });

  it('refuses a foreign Host header (DNS rebinding) with 403 on a loopback-bound server', async () => {
    const { request } = await import('node:http');
    const url = new URL(`${base}/mcp`);
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

  it('rate-limits per user with 429 and Retry-After, without touching other users', async () => {
    const limited = await start({}, { burst: 3 });
    const alice = await token({ sub: 'user-alice' });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await post(limited, { authorization: `Bearer ${alice}` })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const res = await post(limited, { authorization: `Bearer ${alice}` });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await res.json()).toMatchObject({ code: 'mcp_rate_limited' });
    expect((await post(limited, { authorization: `Bearer ${await token({ sub: 'user-bob' })}` })).status).toBe(200);
    const usage = await createRateLimiter({ redis: redis.redis, prefix: redis.prefix, perMinute: 60, burst: 3 }).usage(
      new Date().toISOString().slice(0, 10),
    );
    expect(usage['user-alice client-1']).toBe(3);
  });

  it('answers 503 (not 401, not 200) when the signing keys cannot be fetched', async () => {
    const noKeys = await start({}, { jwksUrl: 'http://127.0.0.1:1/oauth/jwks' });
    const res = await post(noKeys, { authorization: `Bearer ${await token()}` });
    expect(res.status).toBe(503);
  });

  it('answers GET and DELETE on /mcp with 405 (stateless server)', async () => {
    const auth = { authorization: `Bearer ${await token()}` };
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${base}/mcp`, { method, headers: auth });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(Problem.parse(await res.json()).code).toBe('method_not_allowed');
    }
  });

  it('reports an unreachable catalogue and bad arguments as tool results with isError', async () => {
    const auth = { authorization: `Bearer ${await token()}`, 'mcp-protocol-version': '2025-11-25' };
    const call = async (name: string, args: object) => {
      const res = await post(base, auth, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name, arguments: args } });
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

  it('answers malformed JSON with a 4xx, not a 500', async () => {
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, authorization: `Bearer ${await token()}` },
      body: '{nope',
    });
    expect(res.status).toBe(400);
  });
});
