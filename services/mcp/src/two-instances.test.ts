// Stateless instances, proven: MCP requests of one client land on either of two mcp processes
// (no session state in a process), and one user's rate limit holds across both.
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startService, testRedis, type RunningService, type TestRedis } from '@fragrance/testkit';
import { close, INITIALIZE, jwksServer, MCP_HEADERS, mintToken, signingKey, type SigningKey } from './test-helpers.ts';

const MCP_URL = 'http://mcp.example.test';
const ISSUER = 'http://auth.example.test';
const BURST = 20;

describe('two mcp instances on one Redis (real processes)', () => {
  let redis: TestRedis;
  let key: SigningKey;
  let jwks: { url: string; server: Server };
  const instances: RunningService[] = [];

  beforeAll(async () => {
    redis = await testRedis('mcp-pair');
    key = await signingKey('pair-key');
    jwks = await jwksServer([key]);
    const env = {
      REDIS_URL: redis.url,
      REDIS_PREFIX: redis.prefix,
      MCP_URL,
      OAUTH_ISSUER: ISSUER,
      JWKS_URL: jwks.url,
      // initialize and tools/list are answered by the server itself; nothing reaches the catalogue.
      CATALOGUE_SERVICE_URL: 'http://127.0.0.1:1',
      MCP_RATE_LIMIT_BURST: String(BURST),
      MCP_RATE_LIMIT_PER_MINUTE: '1',
      // Agreement is tested, not the fail-fast bound: a loaded CI machine may take longer than 500 ms to reply.
      REDIS_COMMAND_TIMEOUT_MS: '10000',
    };
    instances.push(...(await Promise.all([startService('mcp', await freePort(), env), startService('mcp', await freePort(), env)])));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(instances.map((i) => i.stop()));
    await close(jwks.server);
    await redis.cleanup();
  });

  const post = async (url: string, token: string, body: unknown) => {
    const res = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, authorization: `Bearer ${token}`, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { result?: { tools?: unknown[] } } };
  };

  it('initialize on one instance, tools/list on the other: both answer for the same client', async () => {
    const token = await mintToken(key, { issuer: ISSUER, audience: `${MCP_URL}/mcp`, sub: 'user-either' });
    const [a, b] = instances;
    expect((await post(a!.url, token, INITIALIZE)).status).toBe(200);
    const listed = await post(b!.url, token, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(listed.status).toBe(200);
    expect(listed.body.result?.tools).toHaveLength(12);
    const again = await post(a!.url, token, { jsonrpc: '2.0', id: 3, method: 'tools/list' });
    expect(again.body.result?.tools).toHaveLength(12);
  });

  it('one rate limit per user across both: 60 requests alternating get exactly the burst through', async () => {
    const token = await mintToken(key, { issuer: ISSUER, audience: `${MCP_URL}/mcp`, sub: 'user-flood' });
    const statuses = await Promise.all(
      Array.from({ length: 60 }, (_, i) => post(instances[i % 2]!.url, token, { jsonrpc: '2.0', id: i, method: 'tools/list' })),
    );
    const counts = statuses.reduce<Record<number, number>>((acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }), {});
    expect(counts).toEqual({ 200: BURST, 429: 60 - BURST });
  });

  it('each instance answers /health/live and /health/ready (200: up, Redis reachable, not draining)', async () => {
    for (const instance of instances) {
      for (const path of ['/health/live', '/health/ready']) {
        const res = await fetch(`${instance.url}${path}`);
        expect(res.status, path).toBe(200);
        expect(res.headers.get('cache-control')).toBe('no-store');
      }
      expect(await (await fetch(`${instance.url}/health/ready`)).json()).toEqual({ status: 'ok', dependencies: { redis: 'up' } });
    }
  });
});
