import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disableUser, MachineClientStore, RevocationStore, UserStore } from '@fragrance/identity';
import { createLogger } from '@fragrance/http';
import { testRedis, type TestRedis } from '@fragrance/testkit';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { createDeps, type RunningDeps } from './deps.ts';
import { close, INITIALIZE, jwksServer, listen, MCP_HEADERS, mintToken, signingKey, type SigningKey } from './test-helpers.ts';

const MCP_URL = 'http://mcp.example.test';
const ISSUER = 'http://auth.example.test';

// The app exactly as main.ts wires it from its environment, with a REDIS_PREFIX other than the
// default: revocation records written under that prefix by the auth service or the ops CLI must bite.
describe('MCP server wired from config (createDeps) under a non-default REDIS_PREFIX', () => {
  let redis: TestRedis;
  let key: SigningKey;
  let jwks: { url: string; server: Server };
  let deps: RunningDeps;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    redis = await testRedis('mcp-deps');
    key = await signingKey('key-1');
    jwks = await jwksServer([key]);
    const config = loadConfig({
      MCP_URL,
      OAUTH_ISSUER: ISSUER,
      JWKS_URL: jwks.url,
      REDIS_URL: redis.url,
      REDIS_PREFIX: redis.prefix,
      CATALOGUE_SERVICE_URL: 'http://127.0.0.1:1',
    });
    deps = createDeps(config, createLogger('mcp-test', 'silent'));
    // main.ts's connection does not queue commands while connecting; wait so the first request is not a 503.
    if (deps.redis.status !== 'ready') await once(deps.redis, 'ready');
    server = createServer(buildApp(deps));
    base = await listen(server);
  });
  afterAll(async () => {
    await Promise.all([server, jwks.server].filter(Boolean).map(close));
    await deps?.close();
    await redis.cleanup();
  });

  const initialize = async (token: string) =>
    fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` },
      body: JSON.stringify(INITIALIZE),
    });
  const tokenFor = (sub: string, gid: string) => mintToken(key, { issuer: ISSUER, audience: `${MCP_URL}/mcp`, sub, gid });

  it('refuses the tokens of a user disabled the way `ops users disable` does it (same prefix)', async () => {
    const prefix = redis.prefix;
    const users = new UserStore(redis.redis, { prefix, scrypt: { N: 1024, r: 8, p: 1 } });
    const user = await users.create('leaver@example.test', 'correct horse battery staple');
    const token = await tokenFor(user.id, `grant-${user.id}`);
    expect((await initialize(token)).status).toBe(200);

    await disableUser(users, new RevocationStore(redis.redis, { prefix }), user.email);

    const refused = await initialize(token);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('refuses the tokens of a grant revoked by the auth service (same prefix), and only those', async () => {
    const revoked = await tokenFor('user-grant', 'grant-revoked');
    const kept = await tokenFor('user-grant', 'grant-kept');
    expect((await initialize(revoked)).status).toBe(200);

    await new RevocationStore(redis.redis, { prefix: redis.prefix }).revokeGrant('grant-revoked', 60);

    expect((await initialize(revoked)).status).toBe(401);
    expect((await initialize(kept)).status).toBe(200);
  });

  it('keeps its per-user rate-limit bucket and usage counts under REDIS_PREFIX', async () => {
    const sub = `rate-${crypto.randomUUID()}`;
    expect((await initialize(await tokenFor(sub, 'grant-rate'))).status).toBe(200);
    expect(await redis.redis.exists(`${redis.prefix}mcp:bucket:${sub}`)).toBe(1);
    expect(await redis.redis.exists(`fcs:mcp:bucket:${sub}`)).toBe(0);
    const usage = await deps.rateLimiter.usage(new Date().toISOString().slice(0, 10));
    expect(usage[`${sub} client-1`]).toBe(1);
    const day = new Date().toISOString().slice(0, 10);
    expect(await redis.redis.hget(`${redis.prefix}mcp:usage:${day}`, `${sub} client-1`)).toBe('1');
  });

  it("counts a machine client's calls against its own daily quota (registered as `ops clients create --machine` does)", async () => {
    const revocations = new RevocationStore(redis.redis, { prefix: redis.prefix });
    const machines = new MachineClientStore(redis.redis, { prefix: redis.prefix, revocations });
    const { client } = await machines.create({ name: 'Back office', quotaPerDay: 1 });
    const token = await mintToken(key, { issuer: ISSUER, audience: `${MCP_URL}/mcp`, sub: client.id, clientId: client.id, gid: '' });
    expect((await initialize(token)).status).toBe(200);
    const over = await initialize(token);
    expect(over.status).toBe(429);
    expect(((await over.json()) as { code?: string }).code).toBe('daily_quota_exceeded');
    expect((await machines.usage(client.id, 1))[0]!.requests).toBe(1);
  });
});
