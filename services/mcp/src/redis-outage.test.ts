import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { describe, expect } from 'vitest';
import { RevocationStore } from '@fragrance/identity';
import { createLogger } from '@fragrance/http';
import { close, freePort, listen, REPO_ROOT, startLocalRedis, stopLocalRedis, uniquePrefix } from '@fragrance/testkit';
import { createRedisClient } from '@fragrance/redis';
import { createRateLimiter } from './rate-limit.ts';
import { mcpTest } from './testing/app.ts';
import { INITIALIZE } from './testing/tokens.ts';

const localDir = process.env.FRAGRANCE_LOCAL_DIR ?? `${REPO_ROOT}.local`;
const COPY_MAX_AGE_MS = 10_000;

// The server as main.ts wires it, on a redis-server of the test's own that the test stops (never
// the shared one), and a stand-in catalogue that answers every search with an empty page.
const it = mcpTest
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  .extend('ownRedis', { scope: 'file' }, async ({}, { onCleanup }) => {
    const port = await freePort();
    const name = `mcp-outage-${port}`;
    const url = await startLocalRedis({ name, port });
    onCleanup(async () => {
      await stopLocalRedis({ name, port }).catch(() => undefined);
      rmSync(`${localDir}/redis/${name}`, { recursive: true, force: true });
      rmSync(`${localDir}/redis/.${name}.lock`, { force: true });
    });
    return { url, prefix: uniquePrefix('mcp-outage').replace(/-$/, ':'), stop: () => stopLocalRedis({ name, port }) };
  })
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  .extend('catalogueUrl', { scope: 'file' }, async ({}, { onCleanup }) => {
    const catalogue = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ data: [], total: 0, limit: 5, offset: 0, next_cursor: null }));
    });
    onCleanup(() => close(catalogue));
    return listen(catalogue);
  })
  .extend('app', { scope: 'file' }, ({ ownRedis, catalogueUrl, startWiredApp }) =>
    startWiredApp({
      REDIS_URL: ownRedis.url,
      REDIS_PREFIX: ownRedis.prefix,
      REDIS_COMMAND_TIMEOUT_MS: '300',
      CATALOGUE_SERVICE_URL: catalogueUrl,
      REVOCATION_SYNC_MS: '100',
      REVOCATION_COPY_MAX_AGE_MS: String(COPY_MAX_AGE_MS),
    }),
  );

describe('MCP server while Redis is unreachable', () => {
  it('answers tool calls with a valid token from the revocation copy, refuses a token revoked before, then fails closed', async ({
    app,
    ownRedis,
  }) => {
    const post = (token: string, body: unknown) =>
      app.post({ authorization: `Bearer ${token}`, 'mcp-protocol-version': '2025-11-25' }, body);
    const search = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_fragrances', arguments: { query: 'rose' } } };
    const tokenOf = (gid: string) => app.token({ sub: `user-${gid}`, gid });
    const valid = await tokenOf('grant-kept');
    const revoked = await tokenOf('grant-revoked');
    expect((await post(revoked, INITIALIZE)).status).toBe(200);
    await new RevocationStore(app.deps.redis, { prefix: ownRedis.prefix }).revokeGrant('grant-revoked', 600);
    const revokedAt = Date.now();
    // The copy is read every 100 ms; once it holds the record, Redis may go.
    await expect.poll(() => app.deps.revocations.syncedAt ?? 0, { timeout: 10_000 }).toBeGreaterThan(revokedAt);
    await ownRedis.stop();

    const call = await post(valid, search);
    expect(call.status).toBe(200);
    const result = ((await call.json()) as { result: { isError?: boolean; structuredContent?: { total: number } } }).result;
    expect(result.isError).toBeFalsy();
    expect((await post(valid, INITIALIZE)).status).toBe(200);
    const refused = await post(revoked, INITIALIZE);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // It can still answer: it stays in the load balancer.
    expect((await fetch(`${app.url}/health/ready`)).status).toBe(200);

    // Past REVOCATION_COPY_MAX_AGE_MS without a sync, nothing is decided on the old copy.
    await expect.poll(async () => (await post(valid, INITIALIZE)).status, { timeout: COPY_MAX_AGE_MS * 3 }).toBe(503);
    expect((await fetch(`${app.url}/health/ready`)).status).toBe(503);
  }, 60_000);

  it('limits each user with a bucket of its own size while Redis cannot answer', async ({ ownRedis }) => {
    const unreachable = createRedisClient(
      { REDIS_URL: `redis://127.0.0.1:${await freePort()}`, REDIS_COMMAND_TIMEOUT_MS: 300 },
      createLogger('t', 'silent'),
      'request-path',
    );
    unreachable.on('error', () => undefined);
    let now = Date.parse('2026-11-27T12:00:00Z');
    const limiter = createRateLimiter({ redis: unreachable, prefix: ownRedis.prefix, perMinute: 60, burst: 3, now: () => now });
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
