import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import { describe, expect } from 'vitest';
import { generateCatalogue } from '@fragrance/dataset';
import { createLogger } from '@fragrance/http';
import { disableUser, RevocationStore, UserStore } from '@fragrance/identity';
import { makeRecord } from '@fragrance/search/testing';
import { FormUser } from '@fragrance/testkit';
import { tokenVerifierFor } from '../src/auth/verify-token.ts';
import { serverJson } from '../src/discovery/documents.ts';
import { MemoryOAuthProvider } from '../src/testing/oauth-provider.ts';
import { catalogueOf, mcpStackTest, type Stack, type StackService } from '../src/testing/stack.ts';
import { MCP_HEADERS } from '../src/testing/tokens.ts';

// End to end, as an assistant would meet it: the SDK's own client and OAuth support against the
// real gateway, auth service and catalogue (child processes) and this MCP server, with a short
// access-token lifetime so the client has to go through a refresh.
const ACCESS_TOKEN_TTL = 4;
const REDIRECT = 'http://127.0.0.1:53682/callback';
const credentials = { email: 'mcp.e2e@example.com', password: 'correct horse battery staple' };
const leaver = { email: 'mcp.leaver@example.com', password: 'another long passphrase' };
const TEST_SCRYPT = { N: 1024, r: 8, p: 1 };
const KNOWN = makeRecord({
  id: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b',
  name: 'Zygomatic Vetiver Nocturne',
  brand: 'Maison Testière',
  country: 'FR',
  concentration: 'Eau de Parfum',
  year_released: 2019,
  notes: { top: ['grapefruit'], heart: ['vetiver'], base: ['cedar'] },
  accords: ['woody', 'earthy', 'citrus'],
  available_in_au: true,
});

/** A JSON log line, as far as the trace test reads it. */
interface Line {
  trace_id?: string;
  tool?: string;
  req?: { path?: string };
}

/** Every line this MCP server logged (it runs in this process so the test can read its usage log). */
const logLines: Record<string, unknown>[] = [];
const sink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString().split('\n')) if (line) logLines.push(JSON.parse(line) as Record<string, unknown>);
    done();
  },
});

/** The catalogue, auth and the gateway as processes, this MCP server in process behind the gateway; two people who can sign in. */
const it = mcpStackTest.extend('stack', { scope: 'file' }, async ({ redis, es, startStack, startApp }) => {
  const alias = await catalogueOf(es, [KNOWN, ...generateCatalogue({ count: 300, seed: 7 })]);
  const users = new UserStore(redis.redis, { prefix: redis.prefix, scrypt: TEST_SCRYPT });
  await users.create(credentials.email, credentials.password);
  await users.create(leaver.email, leaver.password);
  return startStack({
    services: ['catalogue', 'auth', 'gateway'],
    alias,
    env: { catalogue: { LOG_LEVEL: 'info' }, auth: { ACCESS_TOKEN_TTL_SECONDS: String(ACCESS_TOKEN_TTL) }, gateway: { LOG_LEVEL: 'info' } },
    inProcessMcp: async (urls) => {
      const app = await startApp({
        env: { MCP_URL: urls.edge, OAUTH_ISSUER: urls.edge, JWKS_URL: `${urls.auth}/oauth/jwks` },
        catalogueUrl: urls.catalogue,
        catalogueTimeoutMs: 5_000,
        rateLimit: { perMinute: 600, burst: 200 },
        logger: createLogger('mcp', 'info', sink),
        // No clock skew allowed: the refresh test waits for the access token's expiry to bite.
        verify: (config, revocations) => tokenVerifierFor(config, revocations, { clockToleranceSeconds: 0 }),
      });
      return app.url;
    },
  });
});

describe('MCP end to end: SDK client with OAuth through the edge', () => {
  let stack: Stack;
  let edge: string;
  const provider = new MemoryOAuthProvider(REDIRECT);
  let client: Client;
  // Extra headers the SDK client sends with each request (read per request): a traceparent, when set.
  const traced: { headers: Record<string, string> } = { headers: {} };

  // The tests below follow one assistant through its sign-in, calls and refresh, in order.
  it.beforeAll(async ({ stack: started }) => {
    stack = started;
    edge = started.urls.edge;
  });
  it.afterAll(async () => {
    await client?.close().catch(() => {});
  });

  it('answers an unauthenticated MCP request at the edge with 401 and the metadata URL', async () => {
    const res = await fetch(`${edge}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain(`resource_metadata="${edge}/.well-known/oauth-protected-resource/mcp"`);
    const prm = (await (await fetch(`${edge}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>;
    expect(prm).toMatchObject({ resource: `${edge}/mcp`, authorization_servers: [edge] });
  });

  it('serves the Server Card and the AI Catalog at the edge; every URL they and server.json name answers there', async () => {
    const catalog = (await (await fetch(`${edge}/.well-known/ai-catalog.json`)).json()) as { entries: { url: string }[] };
    expect(await (await fetch(`${edge}/.well-known/mcp/catalog.json`)).json()).toEqual(catalog);
    expect(catalog.entries.map((e) => e.url)).toEqual([`${edge}/mcp/server-card`]);
    const card = (await (await fetch(catalog.entries[0]!.url)).json()) as { remotes: { url: string }[] };
    expect(await (await fetch(`${edge}/.well-known/mcp/server-card.json`)).json()).toEqual(card);
    expect(card.remotes.map((r) => r.url)).toEqual([`${edge}/mcp`]);
    const challenge = await fetch(card.remotes[0]!.url, { method: 'POST', headers: MCP_HEADERS, body: '{}' });
    expect(challenge.status).toBe(401);
    const { oauth } = serverJson({ MCP_URL: edge, OAUTH_ISSUER: edge })._meta['io.modelcontextprotocol.registry/publisher-provided'];
    expect((await fetch(oauth.protectedResourceMetadata)).status).toBe(200);
    expect((await fetch(`${oauth.authorizationServer}/.well-known/oauth-authorization-server`)).status).toBe(200);
  });

  it('discovers, registers and authorizes with PKCE and resource; sign-in and consent over HTTP', async () => {
    const first = new StreamableHTTPClientTransport(new URL(`${edge}/mcp`), { authProvider: provider });
    await expect(new Client({ name: 'e2e', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);

    // Dynamic registration happened, and the authorization request carries PKCE S256 and the resource.
    expect(provider.client?.client_id).toBeTruthy();
    const url = provider.authorizationUrl!;
    expect(`${url.origin}${url.pathname}`).toBe(`${edge}/oauth/authorize`);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toBeTruthy();
    expect(url.searchParams.get('resource')).toBe(`${edge}/mcp`);
    expect(url.searchParams.get('scope')).toContain('catalogue:read');

    const final = await new FormUser(edge).authorize(url.href, credentials);
    const callback = new URL(final.location!);
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT);
    expect(callback.searchParams.get('iss')).toBe(edge);
    await first.finishAuth(callback.searchParams);

    const token = provider.tokens()!;
    expect(token.refresh_token).toBeTruthy();
    expect(decodeJwt(token.access_token)).toMatchObject({ aud: `${edge}/mcp`, iss: edge, client_id: provider.client!.client_id });

    client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${edge}/mcp`), { authProvider: provider, requestInit: traced }));
    expect(client.getServerVersion()?.name).toBe('fragrance-catalogue');
  });

  it('lists the read-only tools with input and output schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        'get_fragrance',
        'list_facets',
        'search_fragrances',
        'similar_fragrances',
        'suggest',
        'list_brands',
        'get_brand',
        'list_notes',
        'list_accords',
        'list_perfumers',
        'compare_fragrances',
        'discover_fragrances',
      ]),
    );
    for (const tool of tools) {
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      expect(tool.outputSchema).toMatchObject({ type: 'object' });
    }
    const search = tools.find((t) => t.name === 'search_fragrances')!;
    expect(Object.keys(search.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining([
        'query',
        'brand',
        'concentration',
        'country',
        'year_from',
        'year_to',
        'limit',
        'offset',
        'cursor',
        'note',
        'accord',
      ]),
    );
  });

  it('searches the real catalogue (structured content and a text summary)', async () => {
    const result = await client.callTool({
      name: 'search_fragrances',
      arguments: { query: 'zygomatic vetiver', limit: 5 },
    });
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as { data: { id: string; name: string }[]; total: number };
    expect(structured.data[0]).toMatchObject({ id: KNOWN.id, name: KNOWN.name });
    expect(result.content[0]).toMatchObject({ type: 'text' });
    expect((result.content[0] as { text: string }).text).toContain('Zygomatic Vetiver Nocturne');

    const filtered = await client.callTool({
      name: 'search_fragrances',
      arguments: { brand: 'maison testiere', concentration: 'EDP', year_from: 2019, year_to: 2019, country: 'fr' },
    });
    expect((filtered.structuredContent as { data: { id: string }[] }).data.map((f) => f.id)).toContain(KNOWN.id);
  });

  it('carries one trace id from the edge through mcp to the catalogue: each service logs it', async () => {
    const traceId = randomBytes(16).toString('hex');
    traced.headers.traceparent = `00-${traceId}-${randomBytes(8).toString('hex')}-01`;
    try {
      const detail = await client.callTool({ name: 'get_fragrance', arguments: { id: KNOWN.id } });
      expect(detail.isError).toBeFalsy();
    } finally {
      delete traced.headers.traceparent;
    }
    const linesOf = (name: StackService): Line[] =>
      stack
        .service(name)
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Line);
    // mcp runs in this process: its tool-call line and its request line.
    expect(logLines.filter((line) => line.trace_id === traceId && line.tool === 'get_fragrance')).toHaveLength(1);
    // The gateway flushes its log each second.
    await expect
      .poll(() => linesOf('gateway').some((line) => line.trace_id === traceId && line.req?.path === '/mcp'), { timeout: 10_000 })
      .toBe(true);
    // The catalogue flushes its log each second too.
    await expect
      .poll(
        () =>
          linesOf('catalogue')
            .filter((line) => line.trace_id === traceId)
            .map((line) => line.req?.path),
        { timeout: 10_000 },
      )
      .toEqual([`/v1/fragrances/${KNOWN.id}`]);
  });

  it('gets one fragrance, finds similar ones, and lists facets', async () => {
    const detail = await client.callTool({ name: 'get_fragrance', arguments: { id: KNOWN.id } });
    expect(detail.isError).toBeFalsy();
    expect(detail.structuredContent).toMatchObject({ id: KNOWN.id, notes: { heart: ['vetiver'] }, brand: 'Maison Testière' });

    const similar = await client.callTool({ name: 'similar_fragrances', arguments: { id: KNOWN.id, limit: 5 } });
    expect(similar.isError).toBeFalsy();
    const similarData = (similar.structuredContent as { data: { id: string }[] }).data;
    expect(similarData.length).toBeGreaterThan(0);
    expect(similarData.map((f) => f.id)).not.toContain(KNOWN.id);

    const facets = await client.callTool({ name: 'list_facets', arguments: {} });
    expect(facets.isError).toBeFalsy();
    const buckets = facets.structuredContent as {
      total: number;
      brands: { value: string; count: number }[];
      concentrations: unknown[];
      accords: unknown[];
    };
    expect(buckets.total).toBe(301);
    expect(buckets.brands.length).toBeGreaterThan(0);
    expect(buckets.concentrations.length).toBeGreaterThan(0);
    expect(buckets.accords.length).toBeGreaterThan(0);
  });

  it('reads a fragrance as a resource by URI', async () => {
    const { contents } = await client.readResource({ uri: `fragrance://catalogue/${KNOWN.id}` });
    expect(JSON.parse((contents[0] as { text: string }).text)).toMatchObject({ id: KNOWN.id });
  });

  it('lists resources and prompts, completes an argument, and calls the discovery, compare and discover tools', async () => {
    const { resources, nextCursor } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain('fragrance://vocabulary/provenance');
    expect(resources.length).toBeLessThanOrEqual(20);
    expect(nextCursor === undefined || typeof nextCursor === 'string').toBe(true);
    expect((await client.listPrompts()).prompts.map((p) => p.name).sort()).toEqual([
      'compare_named_fragrances',
      'find_alternatives',
      'scent_for_occasion',
    ]);
    const completion = await client.complete({
      ref: { type: 'ref/resource', uri: 'fragrance://brands/{slug}' },
      argument: { name: 'slug', value: 'maison tes' },
    });
    expect(completion.completion.values).toContain('maison-testiere');
    const brand = await client.readResource({ uri: 'fragrance://brands/maison-testiere' });
    expect(JSON.parse((brand.contents[0] as { text: string }).text)).toMatchObject({ brand: { name: 'Maison Testière' } });
    const page = (await client.callTool({ name: 'search_fragrances', arguments: { limit: 2, sort: 'votes' } })).structuredContent as {
      data: { id: string }[];
    };
    const otherId = page.data.map((f) => f.id).find((id) => id !== KNOWN.id)!;
    const calls: [string, Record<string, unknown>][] = [
      ['suggest', { q: 'zygomatic vet' }],
      ['list_brands', { search: 'testiere' }],
      ['get_brand', { slug: 'maison-testiere' }],
      ['list_notes', { search: 'vetiv' }],
      ['list_accords', { limit: 3 }],
      ['list_perfumers', { limit: 3 }],
      ['compare_fragrances', { ids: [KNOWN.id, otherId] }],
      // Lexical until record vectors exist (none here): the description's words must match.
      ['discover_fragrances', { description: 'zygomatic vetiver', limit: 3 }],
    ];
    for (const [name, args] of calls) {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
    }
  });

  it('serves a 2026-07-28 client (server/discover, per-request envelope) with the same OAuth tokens', async () => {
    const modern = new Client({ name: 'e2e-2026', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await modern.connect(new StreamableHTTPClientTransport(new URL(`${edge}/mcp`), { authProvider: provider }));
    try {
      expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const result = await modern.callTool({ name: 'search_fragrances', arguments: { query: 'zygomatic vetiver', limit: 5 } });
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent as { data: { id: string }[] }).data[0]?.id).toBe(KNOWN.id);
      const { contents } = await modern.readResource({ uri: `fragrance://catalogue/${KNOWN.id}` });
      expect(JSON.parse((contents[0] as { text: string }).text)).toMatchObject({ id: KNOWN.id });
    } finally {
      await modern.close();
    }
  });

  it('turns bad arguments and unknown ids into tool results with isError, not protocol errors', async () => {
    const unknown = await client.callTool({
      name: 'get_fragrance',
      arguments: { id: '00000000-0000-4000-8000-000000000000' },
    });
    expect(unknown.isError).toBe(true);
    expect((unknown.content[0] as { text: string }).text).toMatch(/not found/i);

    const badConcentration = await client.callTool({
      name: 'search_fragrances',
      arguments: { concentration: 'shampoo' },
    });
    expect(badConcentration.isError).toBe(true);
    expect((badConcentration.content[0] as { text: string }).text).toContain('concentration');

    const badYears = await client.callTool({
      name: 'search_fragrances',
      arguments: { year_from: 2020, year_to: 2000 },
    });
    expect(badYears.isError).toBe(true);
    expect((badYears.content[0] as { text: string }).text).toContain('year_from');

    const notUuid = await client.callTool({ name: 'get_fragrance', arguments: { id: 'nope' } });
    expect(notUuid.isError).toBe(true);
  });

  it('continues through a refresh when the access token expires', async () => {
    const before = provider.tokens()!;
    const expiresAt = decodeJwt(before.access_token).exp!;
    // The expired token is refused once its exp has passed (no clock skew is allowed here)...
    const toolsList = () =>
      fetch(`${edge}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${before.access_token}`,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
      });
    let raw: Response | undefined;
    await expect
      .poll(
        async () => {
          const res = await toolsList();
          if (res.status === 401) raw = res;
          else await res.body?.cancel();
          return res.status;
        },
        { timeout: Math.max(0, expiresAt * 1000 - Date.now()) + 10_000, interval: 250 },
      )
      .toBe(401);
    expect(raw!.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // ...and the SDK client refreshes on that 401 and carries on.
    const result = await client.callTool({ name: 'search_fragrances', arguments: { query: 'vetiver', limit: 3 } });
    expect(result.isError).toBeFalsy();
    const after = provider.tokens()!;
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(decodeJwt(after.access_token).gid).toBe(decodeJwt(before.access_token).gid);
  });

  it('attributes every tool call to the user and client of the token, with a request id', () => {
    const calls = logLines.filter((line) => typeof line.tool === 'string' && line.outcome !== undefined);
    expect(calls.length).toBeGreaterThanOrEqual(8);
    for (const line of calls) {
      expect(line).toMatchObject({ client_id: provider.client!.client_id });
      expect(line.sub).toEqual(expect.any(String));
      expect(line.request_id).toEqual(expect.any(String));
    }
    expect(JSON.stringify(logLines)).not.toContain(provider.tokens()!.access_token);
  });

  it('refuses the tokens of a revoked grant at once (refresh token revoked at the auth service)', async () => {
    const { access_token, refresh_token } = provider.tokens()!;
    const revoke = await fetch(`${edge}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: refresh_token!,
        token_type_hint: 'refresh_token',
        client_id: provider.client!.client_id,
      }).toString(),
    });
    expect(revoke.status).toBe(200);
    const res = await fetch(`${edge}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${access_token}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('refuses the tokens of a user the operator disables, at once', async ({ redis }) => {
    const other = new MemoryOAuthProvider(REDIRECT);
    const transport = new StreamableHTTPClientTransport(new URL(`${edge}/mcp`), { authProvider: other });
    await expect(new Client({ name: 'e2e', version: '1.0.0' }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    const final = await new FormUser(edge).authorize(other.authorizationUrl!.href, leaver);
    await transport.finishAuth(new URL(final.location!).searchParams);
    const { access_token } = other.tokens()!;
    const listTools = () =>
      fetch(`${edge}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${access_token}`,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 11, method: 'tools/list' }),
      });
    expect((await listTools()).status).toBe(200);
    const users = new UserStore(redis.redis, { prefix: redis.prefix, scrypt: TEST_SCRYPT });
    await disableUser(users, new RevocationStore(redis.redis, { prefix: redis.prefix }), leaver.email);
    const refused = await listTools();
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });
});
