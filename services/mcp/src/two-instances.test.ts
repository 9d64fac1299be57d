// Stateless instances, proven: MCP requests of one client land on either of two mcp processes
// (no session state in a process), and one user's rate limit holds across both.
import { describe, expect } from 'vitest';
import { close, freePort, startService } from '@fragrance/testkit';
import { mcpTest, TEST_ISSUER as ISSUER, TEST_MCP_URL as MCP_URL } from './testing/app.ts';
import { INITIALIZE, jwksServer, MCP_HEADERS, mintToken, signingKey } from './testing/tokens.ts';

const BURST = 20;

/** Two mcp processes on the test file's Redis, trusting one throw-away key; a token of that key for `sub`. */
const it = mcpTest.extend('pair', { scope: 'file' }, async ({ redis }, { onCleanup }) => {
  const key = await signingKey('pair-key');
  const jwks = await jwksServer([key]);
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
  const started = await Promise.allSettled([startService('mcp', await freePort(), env), startService('mcp', await freePort(), env)]);
  const instances = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  onCleanup(async () => {
    await Promise.all(instances.map((i) => i.stop()));
    await close(jwks.server);
  });
  const failed = started.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return {
    instances,
    token: (sub: string) => mintToken(key, { issuer: ISSUER, audience: `${MCP_URL}/mcp`, sub }),
  };
});

describe('two mcp instances on one Redis (real processes)', () => {
  const post = async (url: string, token: string, body: unknown) => {
    const res = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, authorization: `Bearer ${token}`, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { result?: { tools?: unknown[] } } };
  };

  it('initialize on one instance, tools/list on the other: both answer for the same client', async ({ pair }) => {
    const token = await pair.token('user-either');
    const [a, b] = pair.instances;
    expect((await post(a!.url, token, INITIALIZE)).status).toBe(200);
    const listed = await post(b!.url, token, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(listed.status).toBe(200);
    expect(listed.body.result?.tools).toHaveLength(12);
    const again = await post(a!.url, token, { jsonrpc: '2.0', id: 3, method: 'tools/list' });
    expect(again.body.result?.tools).toHaveLength(12);
  });

  it('one rate limit per user across both: 60 requests alternating get exactly the burst through', async ({ pair }) => {
    const token = await pair.token('user-flood');
    const statuses = await Promise.all(
      Array.from({ length: 60 }, (_, i) => post(pair.instances[i % 2]!.url, token, { jsonrpc: '2.0', id: i, method: 'tools/list' })),
    );
    const counts = statuses.reduce<Record<number, number>>((acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }), {});
    expect(counts).toEqual({ 200: BURST, 429: 60 - BURST });
  });

  it('each instance answers /health/live and /health/ready (200: up, Redis reachable, not draining)', async ({ pair }) => {
    for (const instance of pair.instances) {
      for (const path of ['/health/live', '/health/ready']) {
        const res = await fetch(`${instance.url}${path}`);
        expect(res.status, path).toBe(200);
        expect(res.headers.get('cache-control')).toBe('no-store');
      }
      expect(await (await fetch(`${instance.url}/health/ready`)).json()).toEqual({ status: 'ok', dependencies: { redis: 'up' } });
    }
  });
});
