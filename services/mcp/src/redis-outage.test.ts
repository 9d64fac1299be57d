import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RevocationStore } from '@fragrance/identity';
import { createLogger } from '@fragrance/http';
import { freePort, REPO_ROOT, startLocalRedis, stopLocalRedis, uniquePrefix } from '@fragrance/testkit';
import { createRedisClient } from '@fragrance/redis';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { createDeps, type RunningDeps } from './deps.ts';
import { createRateLimiter } from './rate-limit.ts';
import { close, INITIALIZE, jwksServer, listen, MCP_HEADERS, mintToken, signingKey, type SigningKey } from './test-helpers.ts';

const MCP_URL = 'http://mcp.example.test';
const ISSUER = 'http://auth.example.test';
const localDir = process.env.FRAGRANCE_LOCAL_DIR ?? `${REPO_ROOT}.local`;
const COPY_MAX_AGE_MS = 10_000;

// The server as main.ts wires it, on a redis-server of the test's own that the test stops (never
// the shared one), and a stand-in catalogue that answers every search with an empty page.
describe('MCP server while Redis is unreachable', () => {
  let port: number;
  let name: string;
  let key: SigningKey;
  let jwks: { url: string; server: Server };
  let catalogue: Server;
  let deps: RunningDeps;
  let server: Server;
  let base: string;
  let store: RevocationStore;
  const prefix = uniquePrefix('mcp-outage').replace(/-$/, ':');

  beforeAll(async () => {
    port = await freePort();
    name = `mcp-outage-${port}`;
    const url = await startLocalRedis({ name, port });
    key = await signingKey('key-1');
    jwks = await jwksServer([key]);
    catalogue = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ data: [], total: 0, limit: 5, offset: 0, next_cursor: null }));
    });
    const config = loadConfig({
      MCP_URL,
      OAUTH_ISSUER: ISSUER,
      JWKS_URL: jwks.url,
      REDIS_URL: url,
      REDIS_PREFIX: prefix,
      REDIS_COMMAND_TIMEOUT_MS: '300',
      CATALOGUE_SERVICE_URL: await listen(catalogue),
      REVOCATION_SYNC_MS: '100',
      REVOCATION_COPY_MAX_AGE_MS: String(COPY_MAX_AGE_MS),
    });
    deps = createDeps(config, createLogger('mcp-test', 'silent'));
    if (deps.redis.status !== 'ready') await once(deps.redis, 'ready');
    store = new RevocationStore(deps.redis, { prefix });
    server = createServer(buildApp(deps));
    base = await listen(server);
  });
  afterAll(async () => {
    await Promise.all([server, jwks.server, catalogue].map(close));
    await deps.close().catch(() => undefined);
    await stopLocalRedis({ name, port }).catch(() => undefined);
    rmSync(`${localDir}/redis/${name}`, { recursive: true, force: true });
    rmSync(`${localDir}/redis/.${name}.lock`, { force: true });
  });

  const post = (token: string, body: unknown) =>
    fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, authorization: `Bearer ${token}`, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify(body),
    });
  const search = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_fragrances', arguments: { query: 'rose' } } };
  const tokenOf = (gid: string) => mintToken(key, { issuer: ISSUER, audience: `${MCP_URL}/mcp`, sub: `user-${gid}`, gid });

  it('answers tool calls with a valid token from the revocation copy, refuses a token revoked before, then fails closed', async () => {
    const valid = await tokenOf('grant-kept');
    const revoked = await tokenOf('grant-revoked');
    expect((await post(revoked, INITIALIZE)).status).toBe(200);
    await store.revokeGrant('grant-revoked', 600);
    const revokedAt = Date.now();
    // The copy is read every 100 ms; once it holds the record, Redis may go.
    await expect.poll(() => deps.revocations.syncedAt ?? 0, { timeout: 10_000 }).toBeGreaterThan(revokedAt);
    await stopLocalRedis({ name, port });

    const call = await post(valid, search);
    expect(call.status).toBe(200);
    const result = ((await call.json()) as { result: { isError?: boolean; structuredContent?: { total: number } } }).result;
    expect(result.isError).toBeFalsy();
    expect((await post(valid, INITIALIZE)).status).toBe(200);
    const refused = await post(revoked, INITIALIZE);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // It can still answer: it stays in the load balancer.
    expect((await fetch(`${base}/health/ready`)).status).toBe(200);

    // Past REVOCATION_COPY_MAX_AGE_MS without a sync, nothing is decided on the old copy.
    await expect.poll(async () => (await post(valid, INITIALIZE)).status, { timeout: COPY_MAX_AGE_MS * 3 }).toBe(503);
    expect((await fetch(`${base}/health/ready`)).status).toBe(503);
  }, 60_000);

  it('limits each user with a bucket of its own size while Redis cannot answer', async () => {
    const unreachable = createRedisClient(
      { REDIS_URL: `redis://127.0.0.1:${await freePort()}`, REDIS_COMMAND_TIMEOUT_MS: 300 },
      createLogger('t', 'silent'),
      'request-path',
    );
    unreachable.on('error', () => undefined);
    let now = Date.parse('2026-11-27T12:00:00Z');
    const limiter = createRateLimiter({ redis: unreachable, prefix, perMinute: 60, burst: 3, now: () => now });
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await limiter.admit('user-a', 'client-1'));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(decisions[3]).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect((await limiter.admit('user-b', 'client-1')).allowed).toBe(true); // per user
    now += 1_000; // one token a second
    expect((await limiter.admit('user-a', 'client-1')).allowed).toBe(true);
    expect((await limiter.admit('user-a', 'client-1')).allowed).toBe(false);
    unreachable.disconnect();
  });
});
